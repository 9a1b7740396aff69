import type { Fault } from './types.ts';

export const schedulerFaults: Fault[] = [
  {
    id: 'scheduler.metadata-null-as-empty',
    system: 'scheduler',
    breaks: ['scheduler.metadata.null-unsets'],
    description: "A null metadata value is stored as '' instead of unsetting the key",
  },
  {
    id: 'scheduler.metadata-meta-dynamic-only',
    system: 'scheduler',
    breaks: ['scheduler.metadata.null-unsets'],
    description: 'Meta holds only the dynamic keys, not the merge with Static',
  },
];
