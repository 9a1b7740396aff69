import type { FaultSet } from '../faults/types.ts';

/** A dotted identifier: HCL identifiers (letter or underscore, then letters, digits, '_' or '-') joined by dots. */
const DOTTED_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;
/** Each dotted part an HCL identifier as hclsyntax.ValidIdentifier reads it: (ID_Start | '_') (ID_Continue | '-')*, Unicode included. */
const HCL_IDENTIFIER = /^[\p{ID_Start}_][\p{ID_Continue}-]*$/u;

export class MetadataError extends Error {}

export interface MetadataView {
  Meta: Record<string, string>;
  Static: Record<string, string>;
  Dynamic: Record<string, string | null>;
}

/**
 * Where the spec leaves a choice, how the node's metadata behaves. `nomad` follows Nomad's
 * client/meta_endpoint.go NodeMeta.Apply and nomad/structs/node.go NodeMetaApplyRequest.Validate:
 * a null value deletes a dynamic key (kept as a null tombstone only when the key is also static,
 * so that the static value stays hidden), an empty Meta is refused, and keys are validated part by
 * part as Unicode HCL identifiers. `spec`: a null value is kept in Dynamic, marking the key unset.
 */
export type MetadataModel = 'spec' | 'nomad';

/**
 * A node's metadata: Static from the agent configuration, Dynamic set through the API, Meta the
 * merge of both with unset keys removed.
 */
export class NodeMetadata {
  private readonly dynamic: Record<string, string | null> = {};

  constructor(
    private readonly staticMeta: Readonly<Record<string, string>>,
    private readonly faults: FaultSet,
    private readonly model: MetadataModel = 'spec',
  ) {}

  private validKey(key: string): boolean {
    if (this.model === 'nomad') return key.split('.').every((part) => HCL_IDENTIFIER.test(part));
    return DOTTED_IDENTIFIER.test(key);
  }

  /** Applies an update; validates every key before changing anything. */
  update(meta: unknown): void {
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) throw new MetadataError('missing required Meta object');
    const entries = Object.entries(meta as Record<string, unknown>);
    if (entries.length === 0 && this.model === 'nomad') throw new MetadataError('missing required Meta object');
    for (const [key, value] of entries) {
      if (key === '') throw new MetadataError('metadata keys must not be empty');
      if (!this.validKey(key) && !(this.faults.has('scheduler.metadata-slash-keys-accepted') && /^[\w./-]+$/.test(key))) throw new MetadataError(`"${key}" is invalid; metadata keys must be valid dotted hcl identifiers`);
      if (value !== null && typeof value !== 'string') throw new MetadataError(`value of "${key}" must be a string or null`);
    }
    if (this.faults.has('scheduler.metadata-update-replaces')) for (const k of Object.keys(this.dynamic)) delete this.dynamic[k];
    for (const [key, value] of entries) {
      if (this.faults.has('scheduler.metadata-static-overwritten')) (this.staticMeta as Record<string, string>)[key] = String(value ?? '');
      if (value === null && this.faults.has('scheduler.metadata-static-null-deleted') && Object.hasOwn(this.staticMeta, key)) delete (this.staticMeta as Record<string, string>)[key];
      if (value === null && this.faults.has('scheduler.metadata-null-as-empty')) this.dynamic[key] = '';
      else if (value === null && this.model === 'nomad' && !Object.hasOwn(this.staticMeta, key)) delete this.dynamic[key];
      else this.dynamic[key] = value as string | null;
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
