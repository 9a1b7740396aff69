import type { FaultSet } from '../faults/types.ts';
import type { SecretsFlavor } from './flavor.ts';
import type { EngineRequest, HelpDocument, SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { keysAt } from './kv-v1.ts';
import { badRequest, dataEnvelope, notFound, type EngineResult } from './respond.ts';
import { commaIntSlice, vaultDuration, weakInt } from './vault-fields.ts';

interface Version {
  data: Record<string, unknown>;
  created_time: string;
  deletion_time: string;
  destroyed: boolean;
  version: number;
}

/** A key's metadata (vault-plugin-secrets-kv types.proto KeyMetadata): its versions by number and its own settings. */
interface KeyMetadata {
  versions: Map<number, Version>;
  currentVersion: number;
  /** 0 until versions are first trimmed (KeyMetadata.AddVersion). */
  oldestVersion: number;
  createdTime: string;
  updatedTime: string;
  maxVersions: number;
  casRequired: boolean;
  customMetadata: Record<string, string> | null;
}

/** Vault keeps this many versions when neither the mount nor the key says (backend.go defaultMaxVersions). */
const DEFAULT_MAX_VERSIONS = 10;

/**
 * The version 2 key-value engine: versioned secrets under `data/<name>`, with the body
 * `{data:{...}}`; listing under `metadata/`. In the hashicorp dialect it is Vault's engine as its
 * clients use it (hvac, the vault CLI), ported from hashicorp/vault-plugin-secrets-kv: reading a
 * version (`?version=`), check-and-set (`options.cas`), versions trimmed past max_versions,
 * delete/undelete/destroy of versions, metadata read and write. The spec shows only `data/`.
 */
export class KvV2Engine implements SecretsEngine {
  readonly type = 'kv-v2';
  private readonly keys = new Map<string, KeyMetadata>();
  private readonly config = { maxVersions: 0, casRequired: false };

  constructor(
    private readonly faults: FaultSet,
    private readonly flavor: SecretsFlavor,
  ) {}

  /** No path of the engine is open (the fault opens its data/ paths, as a misdeclared unauthenticated path would). */
  isUnauthenticated(path: string): boolean {
    return this.faults.has('secrets.kv2-data-unauthenticated') && path.startsWith('data/');
  }

  /** path_data.go and path_metadata.go register a PatchOperation on data/<name> and metadata/<name> (Vault 1.9+, 1.10+). */
  patches(path: string): boolean {
    const [area, ...rest] = path.split('/');
    return this.flavor.vaultChoices && (area === 'data' || area === 'metadata') && rest.join('/') !== '' && !path.endsWith('/');
  }

  handle(req: EngineRequest): EngineResult {
    const [area, ...rest] = req.path.split('/');
    const key = rest.join('/');
    const vault = this.flavor.vaultChoices;
    if (area === 'data') {
      if (req.operation === 'read') return this.read(key, vault ? req.query.get('version') : null);
      if (req.operation === 'create-or-update') return this.write(key, req.data);
      if (req.operation === 'delete') return this.removeLatest(key);
      if (req.operation === 'patch' && this.patches(req.path)) return this.patch(key, req.data);
      if (req.operation === 'list' || req.operation === 'patch') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    }
    if (req.path === 'config' && vault) return this.configure(req);
    if (vault && key !== '' && req.operation === 'create-or-update' && (area === 'delete' || area === 'undelete' || area === 'destroy')) return this.versions(area, key, req.data);
    if (area === 'metadata' && vault && key !== '' && !key.endsWith('/')) {
      if (req.operation === 'read') return this.readMetadata(key);
      if (req.operation === 'create-or-update') return this.writeMetadata(key, req.data);
      if (req.operation === 'delete') {
        // Every version and the metadata go (path_metadata.go pathMetadataDelete); a missing key is 204 too.
        this.keys.delete(key);
        return { kind: 'no-content' };
      }
      if (req.operation === 'patch') return this.patchMetadata(key, req.data);
    }
    if (area === 'metadata' && req.operation === 'list') {
      // Vault lists every key that has metadata, also one whose versions are all deleted (only a
      // metadata delete removes it: vault-plugin-secrets-kv path_metadata.go pathMetadataList).
      const live = [...this.keys.entries()].filter(([, m]) => vault || [...m.versions.values()].some((v) => !v.deletion_time)).map(([k]) => k);
      const keys = keysAt(live, key === '' || key.endsWith('/') ? key : `${key}/`);
      return keys.length || this.faults.has('secrets.kv2-empty-list-200') ? { kind: 'data', data: { keys } } : notFound();
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
   * The mount's settings (path_config.go): max_versions and cas_required as Vault keeps them. Vault
   * also deletes versions on a timer (delete_version_after); the reference has no timer, so it
   * refuses any other value than 0 rather than accept one it would not honour.
   */
  private configure(req: EngineRequest): EngineResult {
    if (req.operation === 'read') return { kind: 'data', data: { max_versions: this.config.maxVersions, cas_required: this.config.casRequired, delete_version_after: '0s' } };
    if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    const d = req.data;
    const dva = d.delete_version_after === undefined ? 0 : vaultDuration(d.delete_version_after);
    if (dva !== 0) return badRequest('the reference deletes no version on a timer: delete_version_after can only be 0 (0s) here');
    const max = d.max_versions === undefined ? this.config.maxVersions : weakInt(d.max_versions);
    if (max === undefined || max < 0) return badRequest(`Field validation failed: error converting input ${JSON.stringify(d.max_versions)} for field "max_versions"`);
    this.config.maxVersions = max;
    if (d.cas_required !== undefined) this.config.casRequired = d.cas_required === true || d.cas_required === 'true';
    return { kind: 'no-content' };
  }

  private metadataOf(key: string, create: boolean): KeyMetadata | undefined {
    const found = this.keys.get(key);
    if (found || !create) return found;
    const now = new Date().toISOString();
    const meta: KeyMetadata = { versions: new Map(), currentVersion: 0, oldestVersion: 0, createdTime: now, updatedTime: now, maxVersions: 0, casRequired: false, customMetadata: null };
    this.keys.set(key, meta);
    return meta;
  }

  /** A deletion time in the past: a version deleted now (the reference sets no future deletion times). */
  private static gone(v: Version): boolean {
    return Boolean(v.deletion_time) || v.destroyed;
  }

  /**
   * path_data.go pathDataRead: `version` 0, negative or absent is the current one; a version that
   * does not exist is 404 {"errors":[]}; a deleted or destroyed one 404 with its metadata (Vault's
   * own envelope under the upstream behaviour, a listed spec deviation; {"errors":[]} otherwise).
   */
  private read(key: string, versionParam: string | null): EngineResult {
    const meta = this.keys.get(key);
    if (!meta) return notFound();
    let number = meta.currentVersion;
    if (versionParam !== null && versionParam !== '') {
      const asked = weakInt(versionParam);
      if (asked === undefined) return badRequest(`Field validation failed: error converting input ${versionParam} for field "version": cannot parse '${versionParam}' as int`);
      if (asked > 0) number = asked;
    }
    const v = meta.versions.get(number);
    if (!v) return notFound();
    const metadata = { version: v.version, created_time: v.created_time, deletion_time: v.deletion_time, destroyed: v.destroyed, custom_metadata: meta.customMetadata };
    if (KvV2Engine.gone(v)) {
      // Vault answers a deleted or destroyed version with 404 and its metadata in the ordinary
      // envelope, without {"errors":[...]} (pathDataRead: logical.RespondWithStatusCode(resp, req, 404)).
      if (this.flavor.vaultDeviations) return { kind: 'raw', status: 404, body: dataEnvelope({ data: null, metadata }) };
      return notFound();
    }
    if (this.faults.has('secrets.kv2-unwrapped-read')) return { kind: 'data', data: { ...v.data } };
    return { kind: 'data', data: { data: v.data, metadata: this.flavor.vaultChoices ? metadata : { ...metadata, custom_metadata: null } } };
  }

  /** path_data.go pathDataWrite and validateCheckAndSetOption. */
  private write(key: string, body: Record<string, unknown>): EngineResult {
    if (key === '' || key.endsWith('/')) return badRequest('missing secret name in path');
    const data = body.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return badRequest('no data provided');
    const vault = this.flavor.vaultChoices;
    const meta = this.metadataOf(key, true)!;
    const refused = vault ? this.casRefusal(meta, body) : undefined;
    if (refused) return this.unlessNew(key, meta, refused);
    const version: Version = { data: structuredClone(data as Record<string, unknown>), created_time: new Date().toISOString(), deletion_time: '', destroyed: false, version: meta.currentVersion + 1 };
    meta.versions.set(version.version, version);
    meta.currentVersion = version.version;
    meta.updatedTime = version.created_time;
    if (vault) this.trim(meta);
    const answer = { version: version.version, created_time: version.created_time, deletion_time: '', destroyed: false };
    return { kind: 'data', data: vault ? { ...answer, custom_metadata: meta.customMetadata } : answer };
  }

  /**
   * path_data.go pathDataPatch (Vault 1.9+, what Vault's Go client's KVv2.Patch and `vault kv patch`
   * send first): `data` is a JSON merge patch (RFC 7396: a null removes a key, an object merges) of
   * the current version, written as the next one with the same check-and-set rules as a write. A key
   * with no metadata, or whose current version is deleted or destroyed, is 404.
   */
  private patch(key: string, body: Record<string, unknown>): EngineResult {
    if (!('data' in body) || body.data === null) return badRequest('no data provided');
    const meta = this.keys.get(key);
    if (!meta) return notFound();
    const refused = this.casRefusal(meta, body);
    if (refused) return refused;
    const current = meta.versions.get(meta.currentVersion);
    if (!current) return notFound();
    if (KvV2Engine.gone(current)) {
      const metadata = { version: current.version, created_time: current.created_time, deletion_time: current.deletion_time, destroyed: current.destroyed, custom_metadata: meta.customMetadata };
      return this.flavor.vaultDeviations ? { kind: 'raw', status: 404, body: dataEnvelope(metadata) } : notFound();
    }
    const merged = mergePatch(current.data, body.data);
    if (typeof merged !== 'object' || merged === null || Array.isArray(merged)) return badRequest('no data provided');
    // Checked above against the same current version: the patched version is written as a write is.
    return this.write(key, { data: merged, ...('options' in body ? { options: body.options } : {}) });
  }

  /** validateCheckAndSetOption: cas 0 writes only a key with no version yet; cas required by the mount or the key. */
  private casRefusal(meta: KeyMetadata, body: Record<string, unknown>): EngineResult | undefined {
    const options = typeof body.options === 'object' && body.options !== null ? (body.options as Record<string, unknown>) : {};
    if ('cas' in options) {
      const cas = weakInt(options.cas);
      if (cas === undefined) return badRequest('error parsing check-and-set parameter');
      if (cas !== meta.currentVersion) return badRequest('check-and-set parameter did not match the current version');
    } else if (this.config.casRequired || meta.casRequired) {
      return badRequest('check-and-set parameter required for this call');
    }
    return undefined;
  }

  /** A refused write leaves no trace: metadata made only to check it is removed again. */
  private unlessNew(key: string, meta: KeyMetadata, result: EngineResult): EngineResult {
    if (meta.currentVersion === 0 && meta.versions.size === 0 && meta.customMetadata === null && meta.maxVersions === 0 && !meta.casRequired) this.keys.delete(key);
    return result;
  }

  /**
   * KeyMetadata.AddVersion: the larger of the key's and the mount's max_versions, or 10 when both
   * are 0; once a key holds more, the oldest go and oldest_version moves up.
   */
  private trim(meta: KeyMetadata): void {
    const max = Math.max(meta.maxVersions, this.config.maxVersions) || DEFAULT_MAX_VERSIONS;
    if (meta.currentVersion - meta.oldestVersion < max) return;
    const oldest = meta.currentVersion - max + 1;
    for (const n of [...meta.versions.keys()]) if (n < oldest) meta.versions.delete(n);
    meta.oldestVersion = oldest;
  }

  /** path_data.go pathDataDelete: the current version only, if it is live; 204 whatever was there. */
  private removeLatest(key: string): EngineResult {
    const meta = this.keys.get(key);
    const v = meta?.versions.get(meta.currentVersion);
    if (v && !KvV2Engine.gone(v) && !this.faults.has('secrets.kv2-delete-noop')) v.deletion_time = new Date().toISOString();
    return { kind: 'no-content' };
  }

  /**
   * path_delete.go pathDeleteWrite and pathUndeleteWrite, path_destroy.go pathDestroyWrite: the
   * listed versions that exist and can change do; the others are passed over; 204 either way, also
   * for a key that does not exist. An empty list is refused, in each endpoint's own words.
   */
  private versions(action: 'delete' | 'undelete' | 'destroy', key: string, body: Record<string, unknown>): EngineResult {
    const list = commaIntSlice(body.versions);
    if (list === undefined) return badRequest(`Field validation failed: error converting input ${JSON.stringify(body.versions)} for field "versions"`);
    if (list.length === 0) return badRequest(action === 'destroy' ? 'no version number provided' : 'No version number provided');
    const meta = this.keys.get(key);
    if (!meta) return { kind: 'no-content' };
    const now = new Date().toISOString();
    for (const n of list) {
      const v = meta.versions.get(n);
      if (!v || v.destroyed) continue;
      if (action === 'delete' && !v.deletion_time) v.deletion_time = now;
      if (action === 'undelete') v.deletion_time = '';
      if (action === 'destroy') {
        v.destroyed = true;
        v.data = {};
      }
    }
    return { kind: 'no-content' };
  }

  /** path_metadata.go pathMetadataRead: 404 {"errors":[]} for a key with no metadata. */
  private readMetadata(key: string): EngineResult {
    const meta = this.keys.get(key);
    if (!meta) return notFound();
    const versions = Object.fromEntries([...meta.versions.entries()].sort((a, b) => a[0] - b[0]).map(([n, v]) => [String(n), { created_time: v.created_time, deletion_time: v.deletion_time, destroyed: v.destroyed }]));
    return {
      kind: 'data',
      data: {
        versions,
        current_version: meta.currentVersion,
        oldest_version: meta.oldestVersion,
        created_time: meta.createdTime,
        updated_time: meta.updatedTime,
        max_versions: meta.maxVersions,
        cas_required: meta.casRequired,
        delete_version_after: '0s',
        custom_metadata: meta.customMetadata,
      },
    };
  }

  /**
   * path_metadata.go pathMetadataPatch (Vault 1.10+, what `vault kv metadata patch` and hvac's
   * patch_metadata send): the key's settings with the fields given merged in as RFC 7396 says
   * (framework.HandlePatchOperation over max_versions, cas_required, delete_version_after,
   * custom_metadata; in custom_metadata a null removes a key, and a null for the whole of it removes
   * them all). custom_metadata is checked first, its nulls left out; a key with no metadata is 404
   * (Vault's body is empty, the reference's {"errors":[]}); a negative max_versions fails where Go
   * reads the merged JSON back into the uint32 field, a 500; cas_required false where the mount
   * requires it is kept and warned about, as a write warns.
   */
  private patchMetadata(key: string, body: Record<string, unknown>): EngineResult {
    let custom: Record<string, string> | null | undefined;
    if (body.custom_metadata !== undefined && body.custom_metadata !== null) {
      const raw = body.custom_metadata;
      const given = typeof raw === 'object' && !Array.isArray(raw) ? Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([, v]) => v !== null)) : raw;
      const checked = customMetadata(given);
      if (typeof checked === 'string') return badRequest(checked);
    }
    const max = body.max_versions === undefined ? undefined : weakInt(body.max_versions);
    if (body.max_versions !== undefined && max === undefined) return badRequest(`Field validation failed: error converting input ${JSON.stringify(body.max_versions)} for field "max_versions"`);
    if (body.delete_version_after !== undefined && vaultDuration(body.delete_version_after) !== 0) return badRequest('the reference deletes no version on a timer: delete_version_after can only be 0 (0s) here');
    const meta = this.keys.get(key);
    if (!meta) return notFound();
    if (max !== undefined && max < 0) {
      return { kind: 'error', status: 500, errors: [`1 error occurred:\n\t* json: cannot unmarshal number ${max} into Go struct field KeyMetadata.max_versions of type uint32\n\n`] };
    }
    if (body.custom_metadata === null) custom = null;
    else if (body.custom_metadata !== undefined) {
      const merged = mergePatch(meta.customMetadata ?? {}, body.custom_metadata) as Record<string, unknown>;
      const entries = Object.entries(merged).map(([k, v]) => [k, String(v)] as const);
      custom = entries.length ? Object.fromEntries(entries) : null;
    }
    if (max !== undefined) meta.maxVersions = max;
    if (body.cas_required !== undefined) meta.casRequired = body.cas_required === true || body.cas_required === 'true';
    if (custom !== undefined) meta.customMetadata = custom;
    if (body.cas_required !== undefined && !meta.casRequired && this.config.casRequired) {
      return { kind: 'raw', status: 200, body: dataEnvelope(null, { warnings: ['"cas_required" set to false, but is mandated by backend config. This value will be ignored.'] }) };
    }
    return { kind: 'no-content' };
  }

  /**
   * path_metadata.go pathMetadataWrite: with none of its fields, nothing is made (204); otherwise
   * the key is made if missing and the fields given are set. custom_metadata is checked as
   * validateCustomMetadata checks it; delete_version_after as in configure().
   */
  private writeMetadata(key: string, body: Record<string, unknown>): EngineResult {
    const fields = ['max_versions', 'cas_required', 'delete_version_after', 'custom_metadata'].filter((f) => body[f] !== undefined);
    if (fields.length === 0) return { kind: 'no-content' };
    const max = body.max_versions === undefined ? undefined : weakInt(body.max_versions);
    if (body.max_versions !== undefined && max === undefined) return badRequest(`Field validation failed: error converting input ${JSON.stringify(body.max_versions)} for field "max_versions"`);
    if (body.delete_version_after !== undefined && vaultDuration(body.delete_version_after) !== 0) return badRequest('the reference deletes no version on a timer: delete_version_after can only be 0 (0s) here');
    let custom: Record<string, string> | undefined;
    if (body.custom_metadata !== undefined) {
      const checked = customMetadata(body.custom_metadata);
      if (typeof checked === 'string') return badRequest(checked);
      custom = checked;
    }
    const meta = this.metadataOf(key, true)!;
    if (max !== undefined) meta.maxVersions = Math.max(0, max);
    if (body.cas_required !== undefined) meta.casRequired = body.cas_required === true || body.cas_required === 'true';
    if (custom !== undefined) meta.customMetadata = custom;
    meta.updatedTime = new Date().toISOString();
    if (body.cas_required !== undefined && !meta.casRequired && this.config.casRequired) {
      return { kind: 'raw', status: 200, body: dataEnvelope(null, { warnings: ['"cas_required" set to false, but is mandated by backend config. This value will be ignored.'] }) };
    }
    return { kind: 'no-content' };
  }
}

const MAX_CUSTOM_KEYS = 64;
const MAX_CUSTOM_KEY_LENGTH = 128;
const MAX_CUSTOM_VALUE_LENGTH = 512;
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}]/u;

/**
 * path_metadata.go validateCustomMetadata: at most 64 keys, keys 1-128 and values 1-512 characters,
 * all printable; every problem is reported, as Vault's multierror lists them. Values are strings
 * after a weak decode (numbers and booleans are written as their text).
 */
function customMetadata(raw: unknown): Record<string, string> | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return `custom_metadata validation failed: expected a map, got ${JSON.stringify(raw)}`;
  const out: Record<string, string> = {};
  const problems: string[] = [];
  const entries = Object.entries(raw as Record<string, unknown>);
  // Too many keys: said alone, the keys are not checked one by one.
  if (entries.length > MAX_CUSTOM_KEYS) return `1 error occurred:\n\t* custom_metadata validation failed: payload must contain at most ${MAX_CUSTOM_KEYS} keys, provided ${entries.length}\n\n`;
  for (const [k, v] of entries) {
    const value = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
    if (value === undefined) return `custom_metadata validation failed: '${k}' expected type 'string', got unconvertible type '${Array.isArray(v) ? 'slice' : typeof v}'`;
    if (k.length === 0 || k.length > MAX_CUSTOM_KEY_LENGTH) problems.push(`length of key "${k}" is ${k.length} but must be 0 < len(key) <= ${MAX_CUSTOM_KEY_LENGTH}`);
    if (value.length === 0 || value.length > MAX_CUSTOM_VALUE_LENGTH) problems.push(`length of value for key "${k}" is ${value.length} but must be 0 < len(value) <= ${MAX_CUSTOM_VALUE_LENGTH}`);
    if (UNPRINTABLE.test(k)) problems.push(`key "${k}" (${k}) contains unprintable characters`);
    if (UNPRINTABLE.test(value)) problems.push(`value for key "${k}" contains unprintable characters`);
    out[k] = value;
  }
  // validateCustomMetadata collects its problems in a go-multierror, whose text lists even one.
  if (problems.length === 1) return `1 error occurred:\n\t* custom_metadata validation failed: ${problems[0]}\n\n`;
  if (problems.length > 1) return `${problems.length} errors occurred:\n${problems.map((p) => `\t* custom_metadata validation failed: ${p}`).join('\n')}\n\n`;
  return out;
}

/** RFC 7396 JSON merge patch: an object merges key by key, null removes a key, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    // Defined, not assigned: a key named "__proto__" is data like any other, as it is to Vault.
    else Object.defineProperty(out, k, { value: mergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
