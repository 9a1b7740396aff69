import type { FaultSet } from '../faults/types.ts';

/** A dotted identifier: HCL identifiers (letter or underscore, then letters, digits, '_' or '-') joined by dots. */
const DOTTED_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

export class MetadataError extends Error {}

export interface MetadataView {
  Meta: Record<string, string>;
  Static: Record<string, string>;
  Dynamic: Record<string, string | null>;
}

/**
 * A node's metadata: Static from the agent configuration, Dynamic set through the API (null marks
 * a key unset and is kept as null), Meta the merge of both with unset keys removed.
 */
export class NodeMetadata {
  private readonly dynamic: Record<string, string | null> = {};

  constructor(
    private readonly staticMeta: Readonly<Record<string, string>>,
    private readonly faults: FaultSet,
  ) {}

  /** Applies an update; validates every key before changing anything. */
  update(meta: unknown): void {
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) throw new MetadataError('missing required Meta object');
    const entries = Object.entries(meta as Record<string, unknown>);
    for (const [key, value] of entries) {
      if (key === '') throw new MetadataError('metadata keys must not be empty');
      if (!DOTTED_IDENTIFIER.test(key) && !(this.faults.has('scheduler.metadata-slash-keys-accepted') && /^[\w./-]+$/.test(key))) throw new MetadataError(`"${key}" is invalid; metadata keys must be valid dotted hcl identifiers`);
      if (value !== null && typeof value !== 'string') throw new MetadataError(`value of "${key}" must be a string or null`);
    }
    if (this.faults.has('scheduler.metadata-update-replaces')) for (const k of Object.keys(this.dynamic)) delete this.dynamic[k];
    for (const [key, value] of entries) {
      if (this.faults.has('scheduler.metadata-static-overwritten')) (this.staticMeta as Record<string, string>)[key] = String(value ?? '');
      this.dynamic[key] = value === null && this.faults.has('scheduler.metadata-null-as-empty') ? '' : (value as string | null);
    }
  }

  view(): MetadataView {
    const meta: Record<string, string> = this.faults.has('scheduler.metadata-meta-dynamic-only') ? {} : { ...this.staticMeta };
    for (const [key, value] of Object.entries(this.dynamic)) {
      if (value === null) delete meta[key];
      else meta[key] = value;
    }
    return { Meta: meta, Static: { ...this.staticMeta }, Dynamic: { ...this.dynamic } };
  }
}
