import type { FaultSet } from '../faults/types.ts';
import type { SecretsFlavor } from './flavor.ts';
import type { EngineRequest, HelpDocument, SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { keysAt } from './kv-v1.ts';
import { badRequest, dataEnvelope, notFound, type EngineResult } from './respond.ts';

interface Version {
  data: Record<string, unknown>;
  created_time: string;
  deletion_time: string;
  destroyed: boolean;
  version: number;
}

/**
 * The version 2 key-value engine: versioned secrets under `data/<name>`, with the body
 * `{data:{...}}`; listing under `metadata/`.
 */
export class KvV2Engine implements SecretsEngine {
  readonly type = 'kv-v2';
  private readonly secrets = new Map<string, Version[]>();

  constructor(
    private readonly faults: FaultSet,
    private readonly flavor: SecretsFlavor,
  ) {}

  /** No path of the engine is open (the fault opens its data/ paths, as a misdeclared unauthenticated path would). */
  isUnauthenticated(path: string): boolean {
    return this.faults.has('secrets.kv2-data-unauthenticated') && path.startsWith('data/');
  }

  handle(req: EngineRequest): EngineResult {
    const [area, ...rest] = req.path.split('/');
    const key = rest.join('/');
    if (area === 'data') {
      if (req.operation === 'read') return this.read(key);
      if (req.operation === 'create-or-update') return this.write(key, req.data);
      if (req.operation === 'delete') return this.remove(key);
      if (req.operation === 'list') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    }
    if (req.path === 'config' && this.flavor.vaultChoices) return this.config(req);
    if (area === 'metadata' && req.operation === 'delete' && this.flavor.vaultChoices && key !== '') {
      // Vault deletes the key with every version and its metadata (vault-plugin-secrets-kv path_metadata.go
      // pathMetadataDelete); the spec shows no metadata endpoint, so only the hashicorp dialect has it.
      this.secrets.delete(key);
      return { kind: 'no-content' };
    }
    if (area === 'metadata' && req.operation === 'list') {
      // Vault lists every key that has metadata, also one whose versions are all deleted (only a
      // metadata delete removes it: vault-plugin-secrets-kv path_metadata.go pathMetadataList).
      const live = [...this.secrets.entries()].filter(([, v]) => this.flavor.vaultChoices || v.some((x) => !x.deletion_time)).map(([k]) => k);
      const keys = keysAt(live, key === '' || key.endsWith('/') ? key : `${key}/`);
      return keys.length ? { kind: 'data', data: { keys } } : notFound();
    }
    return { kind: 'error', status: 404, errors: [`unsupported path: a version 2 engine serves data/<name> and metadata/<name>, not "${req.path}"`] };
  }

  help(path: string): HelpDocument {
    return helpDocument(
      'KV secrets engine, version 2',
      `Versioned secrets. Write and read with \`data/<name>\` and the body \`{"data":{...}}\`; list with \`metadata/\`. Queried path: \`${path || '/'}\`.`,
      { summary: 'the versioned secret or directory at this path', verbs: ['get', 'post', 'put', 'delete', 'list'] },
      { summary: 'a secret beneath this path', verbs: ['get', 'post', 'put', 'delete', 'list'] },
    );
  }

  /**
   * The mount's settings (vault-plugin-secrets-kv path_config.go): what this engine does, which is
   * Vault's default — every version kept, no check-and-set, no deletion on a timer. A client polls
   * it to learn that a new version 2 mount is ready. Other settings are refused, not ignored.
   */
  private config(req: EngineRequest): EngineResult {
    if (req.operation === 'read') return { kind: 'data', data: { max_versions: 0, cas_required: false, delete_version_after: '0s' } };
    if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    const d = req.data;
    const defaults = (d.max_versions === undefined || Number(d.max_versions) === 0) && (d.cas_required === undefined || d.cas_required === false || d.cas_required === 'false') && (d.delete_version_after === undefined || ['0', '0s', 0].includes(d.delete_version_after as string));
    if (!defaults) return badRequest('the reference keeps every version, requires no check-and-set and deletes no version on a timer: max_versions, cas_required and delete_version_after can only be 0, false and 0s');
    return { kind: 'no-content' };
  }

  private latest(key: string): Version | undefined {
    const versions = this.secrets.get(key);
    const last = versions?.[versions.length - 1];
    return last && !last.deletion_time && !last.destroyed ? last : undefined;
  }

  private read(key: string): EngineResult {
    const versions = this.secrets.get(key);
    const last = versions?.[versions.length - 1];
    if (last && last.deletion_time && this.flavor.vaultDeviations) {
      // Vault answers a read of a deleted version with 404 and the version's metadata, in the
      // ordinary response envelope, without {"errors":[...]} (vault-plugin-secrets-kv path_data.go
      // pathDataRead: logical.RespondWithStatusCode(resp, req, http.StatusNotFound)).
      const metadata = { version: last.version, created_time: last.created_time, deletion_time: last.deletion_time, destroyed: last.destroyed, custom_metadata: null };
      return { kind: 'raw', status: 404, body: dataEnvelope({ data: null, metadata }) };
    }
    const v = this.latest(key);
    if (!v) return notFound();
    const metadata = { version: v.version, created_time: v.created_time, deletion_time: '', destroyed: false, custom_metadata: null };
    if (this.faults.has('secrets.kv2-unwrapped-read')) return { kind: 'data', data: { ...v.data } };
    return { kind: 'data', data: { data: v.data, metadata } };
  }

  private write(key: string, body: Record<string, unknown>): EngineResult {
    if (key === '' || key.endsWith('/')) return badRequest('missing secret name in path');
    const data = body.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return badRequest('no data provided');
    const versions = this.secrets.get(key) ?? [];
    const version: Version = {
      data: structuredClone(data as Record<string, unknown>),
      created_time: new Date().toISOString(),
      deletion_time: '',
      destroyed: false,
      version: versions.length + 1,
    };
    versions.push(version);
    this.secrets.set(key, versions);
    return { kind: 'data', data: { version: version.version, created_time: version.created_time, deletion_time: '', destroyed: false } };
  }

  private remove(key: string): EngineResult {
    const v = this.latest(key);
    if (v && !this.faults.has('secrets.kv2-delete-noop')) v.deletion_time = new Date().toISOString();
    return { kind: 'no-content' };
  }
}
