import type { FaultSet } from '../faults/types.ts';
import type { SecretsFlavor } from './flavor.ts';
import type { EngineRequest, HelpDocument, SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { badRequest, notFound, type EngineResult } from './respond.ts';

/** Default lease the v1 engine reports on reads (32 days), as the upstream engine does. */
const KV_V1_LEASE_SECONDS = 2_764_800;

/** Lists the names directly under `prefix` among `keys`: leaf names, and sub-directories with a trailing '/'. */
export function keysAt(keys: Iterable<string>, prefix: string, recursive = false): string[] {
  const out = new Set<string>();
  for (const key of keys) {
    if (!key.startsWith(prefix)) continue;
    const rest = key.slice(prefix.length);
    if (rest === '') continue;
    const slash = rest.indexOf('/');
    out.add(recursive || slash < 0 ? rest : rest.slice(0, slash + 1));
  }
  return [...out].sort();
}

/** The version 1 key-value engine: one JSON object per key, listing on directories only. */
export class KvV1Engine implements SecretsEngine {
  readonly type = 'kv-v1';
  private readonly secrets = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly faults: FaultSet,
    private readonly flavor: SecretsFlavor = { vaultChoices: false, vaultDeviations: false },
  ) {}

  handle(req: EngineRequest): EngineResult {
    const refused = this.flavor.vaultChoices ? relativePathRefusal(req.operation, req.path) : undefined;
    if (refused) return refused;
    switch (req.operation) {
      case 'read':
        return this.read(req.path);
      case 'list':
        return this.list(req.path);
      case 'create-or-update':
        return this.write(req.path, req.data);
      case 'delete':
        if (!this.faults.has('secrets.kv-delete-noop')) this.secrets.delete(req.path);
        return { kind: 'no-content' };
      default:
        return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    }
  }

  help(path: string): HelpDocument {
    return helpDocument(
      'KV secrets engine, version 1',
      `Reads, writes, deletes and lists secrets at \`${path || '/'}\` and beneath it. Listing is allowed on directories only.`,
      { summary: 'the secret or directory at this path', verbs: ['get', 'post', 'put', 'delete', 'list'] },
      { summary: 'a secret or directory beneath this path', verbs: ['get', 'post', 'put', 'delete', 'list'] },
    );
  }

  private read(key: string): EngineResult {
    const value = this.secrets.get(key);
    return value ? { kind: 'data', data: value, leaseDuration: KV_V1_LEASE_SECONDS } : notFound();
  }

  private write(key: string, data: Record<string, unknown>): EngineResult {
    if (key === '' || key.endsWith('/')) return badRequest('missing secret name in path');
    if (Object.keys(data).length === 0) return badRequest('no data provided');
    const previous = this.faults.has('secrets.kv-write-merges') ? (this.secrets.get(key) ?? {}) : {};
    this.secrets.set(key, { ...previous, ...structuredClone(data) });
    return this.faults.has('secrets.write-201') ? { kind: 'raw', status: 201, body: {} } : { kind: 'no-content' };
  }

  private list(dir: string): EngineResult {
    const prefix = dir === '' || dir.endsWith('/') ? dir : `${dir}/`;
    let keys = keysAt(this.secrets.keys(), prefix, this.faults.has('secrets.kv-list-recursive'));
    // The fault: a secret listed as a directory shows its field names.
    const secret = this.secrets.get(prefix.slice(0, -1));
    if (keys.length === 0 && secret && this.faults.has('secrets.kv-list-secret-fields')) keys = Object.keys(secret);
    if (keys.length === 0 && !this.faults.has('secrets.list-empty-200')) return notFound();
    return { kind: 'data', data: { keys } };
  }
}

/** go-multierror's text for one error, as Vault's core wraps every error of a request (vault/request_handling.go). */
const oneError = (message: string) => `1 error occurred:\n\t* ${message}\n\n`;

/** logical.ErrRelativePath's text (sdk/logical/storage_view.go; vault/barrier_view.go in older Vaults). */
const RELATIVE_PATH = 'relative paths not supported';

/**
 * Vault's storage refuses any key holding "..": the barrier view's SanityCheck (hashicorp/vault
 * sdk/logical/storage_view.go storageView.SanityCheck; vault/barrier_view.go BarrierView.sanityCheck
 * before the view moved to the SDK) answers logical.ErrRelativePath on Get, Put, Delete and List.
 * The version 1 engine (hashicorp/vault-plugin-secrets-kv passthrough.go) keys storage by the request
 * path itself, so the check reaches the client, differently per operation:
 * - read: handleReadOrRenew wraps it ("read failed: %w"); the core appends it to a multierror
 *   (vault/request_handling.go handleRequest, routeErr), and sdk/logical/response_util.go
 *   RespondErrorCommon finds ErrRelativePath inside it (errwrap.Contains): 400.
 * - list and delete: handleList / handleDelete return it unwrapped; same path: 400.
 * - write: the core first runs the existence check (vault/request_handling.go CheckToken,
 *   RouteExistenceCheck); handleExistenceCheck wraps it ("existence check failed: %w"), so it is no
 *   longer == logical.ErrRelativePath and falls to the default branch: ErrInternalError, appended to
 *   a multierror in handleRequest, no branch of RespondErrorCommon matches it: 500 "internal error".
 * The spec says nothing of which characters a key may hold, so only the hashicorp dialect refuses.
 * (The version 2 engine stores keys salted and encrypted per segment — path_data.go getKeyMetadata,
 * sdk/helper/keysutil encryptedKeyStorage.encryptPath — so ".." never reaches storage there, and
 * Vault accepts such keys on a version 2 mount: KvV2Engine refuses none.)
 */
function relativePathRefusal(operation: EngineRequest['operation'], key: string): EngineResult | undefined {
  if (!key.includes('..')) return undefined;
  switch (operation) {
    case 'read':
      return { kind: 'error', status: 400, errors: [oneError(`read failed: ${RELATIVE_PATH}`)] };
    case 'list':
    case 'delete':
      return { kind: 'error', status: 400, errors: [oneError(RELATIVE_PATH)] };
    case 'create-or-update':
      return { kind: 'error', status: 500, errors: [oneError('internal error')] };
    default:
      return undefined;
  }
}
