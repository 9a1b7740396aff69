import type { SystemName } from '../../config/schema.ts';

/** A deliberate defect the reference can be started with, breaking a documented rule the way a real implementation might. */
export interface Fault {
  id: string;
  system: SystemName;
  /** The rules the suites must report FAIL when this fault is on. */
  breaks: string[];
  description: string;
}

export class FaultSet {
  private readonly ids: ReadonlySet<string>;
  constructor(ids: Iterable<string> = []) {
    this.ids = new Set(ids);
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
  list(): string[] {
    return [...this.ids];
  }
}
