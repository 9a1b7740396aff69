import type { SystemName } from '../config/schema.ts';

/** The spec file each system's rules cite (in ../shared/spec/). */
export const SPEC_FILES: Record<SystemName, string> = {
  secrets: '000_b63a2dfa929d7d12.txt',
  mesh: '001_8af4f9e3eb9eb166.txt',
  scheduler: '002_60d134451e576c46.txt',
};
