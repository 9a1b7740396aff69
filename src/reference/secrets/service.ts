import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { ReferenceBehavior } from '../behavior.ts';
import type { FaultSet } from '../faults/types.ts';
import { batchTokenCheckError } from './batch-token-shape.ts';
import { BodyError, closeAfterResponse, readBody } from '../http/body.ts';
import type { Operation } from './engine.ts';
import type { MountEntry } from './mount-table.ts';
import { absolutizePaths, unrelatedHelp } from './help.ts';
import { kvMounts, secretsFlavor, type SecretsFlavor } from './flavor.ts';
import { parseWriteBody } from './json-body.ts';
import { IdentityOidcEngine } from './identity-oidc.ts';
import { inCidrs } from './cidr.ts';
import { MountLayout } from './mount-layout.ts';
import type { MountTable } from './mount-table.ts';
import { NamespaceTree, normalizeNamespace } from './namespaces.ts';
import { checkPathParameters } from './path-params.ts';
import { routeHelp } from './route-help.ts';
import { dataEnvelope, type EngineResult } from './respond.ts';
import { AnswerBatch } from '../http/answer-batch.ts';
import { requestTarget } from '../http/request-target.ts';
import { TokenStore, type TokenEntry } from './token-store.ts';
import type { SigningKey } from './oidc/signing-key.ts';

/** 32 MB, the documented default maximum request size. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** What a target that refuses bodies over 16 MB accepts (the fault that breaks the size limit from below). */
const TOO_SMALL_LIMIT_BYTES = 16 * 1024 * 1024;

/** The one media type Vault takes for PATCH (hashicorp/vault http/logical.go, MergePatchContentTypeHeader). */
const MERGE_PATCH = 'application/merge-patch+json';

/** Values Go's strconv.ParseBool accepts, as the upstream service parses ?list=. */
const BOOL_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const BOOL_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

export interface SecretsServiceOptions {
  dialect: Dialect;
  behavior: ReferenceBehavior;
  faults: FaultSet;
  /** Namespaces to create at start (reference setup). */
  namespaces: string[];
  /** OIDC signing keys by name: the built-in 'default' and any the reference setup adds. */
  signingKeys: Map<string, SigningKey>;
}

const PROVIDER = String.raw`identity/oidc/provider/[^/]+`;

/** A request past routing and the token check, on its way to its engine. */
interface RoutedRequest {
  method: string;
  operation: Operation;
  query: URLSearchParams;
  /** The namespace header, normalised, and the path after /v1/, decoded. */
  nsHeader: string;
  path: string;
  /** The path within the namespace, and within the mount. */
  rest: string;
  rel: string;
  namespace: string;
  mount: MountEntry;
  token: TokenEntry | undefined;
}

/** A path segment that is exactly "." or "..". */
const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|$)/;

/**
 * The embedded secrets service: resolves the namespace (header joined with the path), checks the
 * client token, and routes to the engine mounted at the longest matching prefix.
 */
export class SecretsService {
  readonly tokens = new TokenStore();
  readonly rootToken: TokenEntry;
  readonly namespaces: NamespaceTree;
  private readonly sharedMounts?: MountTable;
  /** Where the version 1 and version 2 key-value engines are mounted in the root namespace. */
  readonly kvV1Mount: string;
  readonly kvV2Mount: string;
  /** How closely the service imitates Vault (dialect and behaviour). */
  readonly flavor: SecretsFlavor;
  /** The service's own address (api_addr), known once its listener is up. */
  apiAddr = 'http://127.0.0.1';
  /** Where the cloud-identity auth method reaches the cloud's issuer and compute API (the reference's simulator). */
  cloudBase = 'http://127.0.0.1';
  /** Paths below a namespace that need no client token: the public OIDC endpoints and logins. */
  private readonly unauthenticated: RegExp[];
  /** The namespace header's name, lower-cased as node:http keys headers. */
  private readonly namespaceHeader: string;
  /** Answers ready at once are written together at the end of the loop's turn (see AnswerBatch). */
  private readonly answers = new AnswerBatch();

  /** The faults this run switches on (the control interface's namespace deletion reads them too). */
  get faults(): FaultSet {
    return this.options.faults;
  }

  constructor(private readonly options: SecretsServiceOptions) {
    const faults = options.faults;
    const flavor = secretsFlavor(options.dialect.name, options.behavior);
    this.flavor = flavor;
    const kv = kvMounts(flavor);
    this.kvV1Mount = kv.v1;
    this.kvV2Mount = kv.v2;
    const authMount = options.dialect.secrets.cloudAuthMount;
    this.namespaceHeader = options.dialect.secrets.namespaceHeader.toLowerCase();
    this.unauthenticated = [new RegExp(`^${PROVIDER}/token$`)];
    if (!faults.has('secrets.cloudauth-login-needs-token')) this.unauthenticated.push(new RegExp(`^auth/${authMount}/login$`));
    if (!faults.has('secrets.oidc-well-known-needs-token')) this.unauthenticated.push(new RegExp(`^${PROVIDER}/\\.well-known/(openid-configuration|keys)$`));
    if (faults.has('secrets.oidc-userinfo-no-auth')) this.unauthenticated.push(new RegExp(`^${PROVIDER}/userinfo$`));
    const layout = new MountLayout({
      dialect: options.dialect,
      behavior: options.behavior,
      faults,
      flavor,
      tokens: this.tokens,
      signingKeys: options.signingKeys,
      apiAddr: () => this.apiAddr,
      cloudBase: () => this.cloudBase,
      tree: () => this.namespaces,
    });
    this.namespaces = new NamespaceTree((ns, origin) => (faults.has('secrets.ns-shared-storage') && this.sharedMounts ? this.sharedMounts : layout.initialMounts(ns, origin)));
    this.sharedMounts = this.namespaces.resolve('').namespace.mounts;
    for (const ns of options.namespaces) this.namespaces.create(ns);
    this.rootToken = this.tokens.create({ policies: ['root'], namespace: '' });
  }

  /**
   * Answers a request. Without a body to read, a request whose engine answers synchronously is
   * routed and answered with no promise per layer (they cost a quarter of OIDC authorize's CPU),
   * its answer written with the loop turn's others (AnswerBatch).
   */
  handle(req: IncomingMessage, res: ServerResponse, method: string): void | Promise<void> {
    const faults = this.options.faults;
    const url = requestTarget(req.url ?? '/');
    // The fault: any /v<N>/ prefix is served as version 1.
    if (faults.has('secrets.version-prefix-ignored')) url.pathname = url.pathname.replace(/^\/v\d+\//, '/v1/');
    if (!url.pathname.startsWith('/v1/')) {
      req.resume();
      return this.sendErrors(res, 404, ['Missing /v1/ prefix in path. Use vault path-help command to retrieve API help for paths']);
    }
    const path = decodePath(url.pathname.slice('/v1/'.length));
    if (path === undefined) {
      req.resume();
      return this.sendErrors(res, 400, ['invalid request path: bad percent-encoding, an encoded slash, or a "." or ".." segment']);
    }
    const operation = this.operationFor(method, url.searchParams);
    if (method === 'PATCH' && operation !== 'help') {
      const refused = this.patchRefusal(req);
      if (refused) {
        req.resume();
        return this.sendErrors(res, refused.status, refused.errors);
      }
    }
    if (typeof operation === 'object') {
      req.resume();
      return this.sendErrors(res, operation.status, operation.errors);
    }

    // Vault reads a presented token before anything else (PopulateTokenEntry): one shaped like a
    // batch token whose body is no base64url ends there, in a 500. A listed deviation: upstream only.
    if (this.flavor.vaultDeviations) {
      const presented = this.presentedToken(req);
      const broken = presented === undefined ? undefined : batchTokenCheckError(presented);
      if (broken) {
        req.resume();
        return this.sendErrors(res, 500, [broken]);
      }
    }

    const header = req.headers[this.namespaceHeader];
    const raw = typeof header === 'string' ? header : undefined;
    const nsHeader = faults.has('secrets.ns-header-ignored')
      ? ''
      : faults.has('secrets.ns-header-joined-without-slash')
        ? (raw ?? '').replace(/^\/+/, '')
        : faults.has('secrets.ns-header-slashes-kept') && raw
          ? raw.replace(/([^/])$/, '$1/')
          : normalizeNamespace(raw);
    const { namespace, rest } = this.namespaces.resolve(nsHeader + path);

    const mount = namespace.mounts.find(rest);
    const openPath = this.unauthenticated.some((re) => re.test(rest)) || Boolean(mount?.engine.isUnauthenticated?.(rest.slice(mount.prefix.length)));
    const needsToken = !openPath && !(operation === 'help' && faults.has('secrets.help-unauthenticated'));
    let token: TokenEntry | undefined;
    if (needsToken) {
      token = this.authenticate(req, mount?.type === 'kv');
      // The fault takes the client's address from X-Forwarded-For when the request has one.
      const forwarded = faults.has('secrets.token-cidr-trusts-forwarded-for') ? String(req.headers['x-forwarded-for'] ?? '').split(',')[0]!.trim() : '';
      const outside = token?.boundCidrs && !inCidrs(forwarded || req.socket.remoteAddress, token.boundCidrs);
      // The fault confines an OIDC access token for reads and writes only, so it lists and deletes anywhere.
      const confinedOp = !faults.has('secrets.oidc-access-token-lists-and-deletes') || operation === 'read' || operation === 'create-or-update';
      if (!token || outside || !tokenReaches(token.namespace, namespace.path, faults) || (token.allowedPath && confinedOp && !token.allowedPath.test(rest))) {
        req.resume();
        return this.sendErrors(res, 403, ['permission denied']);
      }
    }

    if (!mount) {
      req.resume();
      return this.sendErrors(res, faults.has('secrets.unknown-path-400') ? 400 : 404, [`no handler for route "${nsHeader}${path}". route entry not found.`]);
    }
    const params = checkPathParameters(mount.engine.type, rest.slice(mount.prefix.length), faults);
    if (params.kind === 'unsupported') {
      req.resume();
      return this.sendErrors(res, 404, faults.has('secrets.unsupported-path-message') ? [] : [`unsupported path: invalid name "${params.name}"`]);
    }
    const routed: RoutedRequest = { method, operation, query: url.searchParams, nsHeader, path, rest, namespace: namespace.path, mount, rel: params.path, token };
    if (operation === 'patch' && !mount.engine.patches?.(params.path)) {
      req.resume();
      return this.sendErrors(res, faults.has('secrets.unsupported-method-400') ? 400 : 405, ['unsupported operation']);
    }
    if (operation === 'patch') return this.readWriteBody(req, res).then((data) => (data === undefined ? undefined : this.serve(req, res, routed, data)));
    if (operation !== 'create-or-update') {
      req.resume();
      return this.serve(req, res, routed, {});
    }
    const contentType = req.headers['content-type'];
    const checked = faults.has('secrets.request-content-type-checked') && contentType !== undefined && !/^application\/(json|x-www-form-urlencoded)/i.test(contentType);
    if (checked || (faults.has('secrets.request-content-type-required') && !/^application\/json/i.test(contentType ?? ''))) {
      req.resume();
      return this.sendErrors(res, 415, ['Content-Type must be application/json']);
    }
    return this.readWriteBody(req, res).then((data) => (data === undefined ? undefined : this.serve(req, res, routed, data)));
  }

  /** A write's body as data; undefined once a refusal has been sent. */
  private async readWriteBody(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
    const faults = this.options.faults;
    try {
      const limit = faults.has('secrets.no-size-limit') ? Number.MAX_SAFE_INTEGER : faults.has('secrets.size-limit-too-small') ? TOO_SMALL_LIMIT_BYTES : MAX_REQUEST_BYTES;
      const body = await readBody(req, limit);
      const form = faults.has('secrets.json-under-form-type-read-as-form') ? /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '') : isForm(req.headers['content-type'], body);
      return form ? formData(body) : parseWriteBody(body, faults, this.flavor);
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      if (err.status === 413) closeAfterResponse(req, res);
      this.sendErrors(res, err.status === 400 && faults.has('secrets.malformed-json-500') ? 500 : err.status, [err.message]);
      return undefined;
    }
  }

  /** Help, or the engine's answer, for a request routed to its mount. */
  private serve(req: IncomingMessage, res: ServerResponse, r: RoutedRequest, data: Record<string, unknown>): void | Promise<void> {
    const faults = this.options.faults;
    let rel = r.rel;
    if (r.operation === 'help') {
      let doc = routeHelp(r.mount.engine.type, rel, this.flavor, faults) ?? r.mount.engine.help(rel);
      if (!doc) return this.sendErrors(res, 404, [`unsupported path: ${r.rest}`]);
      if (faults.has('secrets.help-absolute-paths')) doc = absolutizePaths(doc, r.nsHeader + r.path);
      if (faults.has('secrets.help-openapi-unrelated')) doc = unrelatedHelp();
      // Vault answers help with the help data alone, no response envelope (hashicorp/vault
      // http/help.go handleHelp: respondOk(w, resp.Data); sdk/logical HelpResponse).
      const help = { help: doc.help, openapi: doc.openapi, see_also: null };
      return this.sendJson(res, 200, this.flavor.vaultChoices ? help : { ...dataEnvelope(null), ...help });
    }
    if (r.operation === 'list' && rel !== '' && !rel.endsWith('/')) rel += '/';
    const result = r.mount.engine.handle({
      operation: r.operation,
      path: rel,
      data,
      query: r.query,
      namespace: r.namespace,
      requestPath: r.nsHeader + r.path,
      headers: req.headers,
      remoteAddress: req.socket.remoteAddress,
      token: r.token,
      method: r.method,
    });
    if (result instanceof Promise) return result.then((answer) => this.send(res, answer));
    return this.answers.defer(() => this.send(res, result));
  }

  /** The identity engine of a namespace, for the reference's control interface. */
  identityEngine(namespacePath: string): IdentityOidcEngine | undefined {
    const ns = this.namespaces.resolve(normalizeNamespace(namespacePath)).namespace;
    if (ns.path !== normalizeNamespace(namespacePath)) return undefined;
    const engine = ns.mounts.get('identity/')?.engine;
    return engine instanceof IdentityOidcEngine ? engine : undefined;
  }

  /** The proxy mode (reference setup): requests without the request header are refused before reaching the service. */
  async handleViaProxy(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const faults = this.options.faults;
    const name = this.options.dialect.secrets.requestHeader;
    const value = req.headers[name.toLowerCase()];
    if (value === undefined && !faults.has('secrets.proxy-header-not-required')) {
      req.resume();
      return this.sendErrors(res, faults.has('secrets.proxy-missing-header-400') ? 400 : 412, [`missing "${name}" header`]);
    }
    return this.handle(req, res, method);
  }

  /**
   * PATCH is no verb of the spec: 405. Vault does support it (JSON merge patch), refusing first a
   * missing or unparsable Content-Type with 400 and any other media type with 415 (hashicorp/vault
   * http/logical.go buildLogicalRequestNoAuth); a merge patch goes on to the path, which answers it
   * 405 unless its engine takes PATCH there (KV version 2's data/<name>). Undefined: go on.
   */
  private patchRefusal(req: IncomingMessage): { status: number; errors: string[] } | undefined {
    const unsupported = { status: this.options.faults.has('secrets.unsupported-method-400') ? 400 : 405, errors: ['unsupported operation'] };
    if (!this.flavor.vaultChoices) return unsupported;
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!/^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/.test(type)) return { status: 400, errors: ['mime: no media type'] };
    if (type !== MERGE_PATCH) return { status: 415, errors: [`PATCH requires Content-Type of ${MERGE_PATCH}, provided ${type}`] };
    return undefined;
  }

  private operationFor(method: string, query: URLSearchParams): Operation | { status: number; errors: string[] } {
    const faults = this.options.faults;
    // The spec: ?help=1 on any URL. Vault takes any non-empty value, on any method
    // (hashicorp/vault http/help.go wrapHelpHandler).
    if (this.flavor.vaultChoices ? Boolean(query.get('help')) : query.get('help') === '1' && (method === 'GET' || method === 'LIST')) return 'help';
    const unsupported = { status: faults.has('secrets.unsupported-method-400') ? 400 : 405, errors: ['unsupported operation'] };
    switch (method) {
      case 'GET': {
        const list = query.get('list');
        if (list === null || faults.has('secrets.list-query-ignored')) return 'read';
        if (BOOL_TRUE.has(list)) return 'list';
        if (BOOL_FALSE.has(list) || faults.has('secrets.list-bad-bool-accepted')) return 'read';
        return { status: 400, errors: [`invalid value for list: ${JSON.stringify(list)} is not a boolean`] };
      }
      case 'LIST':
        return faults.has('secrets.list-verb-405') ? unsupported : 'list';
      case 'POST':
        return 'create-or-update';
      case 'PUT':
        return faults.has('secrets.put-405') ? unsupported : 'create-or-update';
      case 'DELETE':
        return 'delete';
      case 'PATCH':
        return this.flavor.vaultChoices ? 'patch' : unsupported;
      default:
        return unsupported;
    }
  }

  /** The client token a request presents: the token header, else Authorization: Bearer. */
  private presentedToken(req: IncomingMessage, bearerIgnored = false): string | undefined {
    const header = req.headers[this.options.dialect.secrets.tokenHeader.toLowerCase()];
    const id = typeof header === 'string' && header ? header : undefined;
    if (id || bearerIgnored) return id;
    return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() || undefined;
  }

  private authenticate(req: IncomingMessage, kvPath: boolean): TokenEntry | undefined {
    const faults = this.options.faults;
    const bearerIgnored = faults.has('secrets.auth-bearer-ignored') || (faults.has('secrets.auth-bearer-kv-only') && !kvPath);
    const id = this.presentedToken(req, bearerIgnored);
    if (!id) return faults.has('secrets.auth-missing-token-allowed') ? this.rootToken : undefined;
    return this.tokens.use(id) ?? (faults.has('secrets.auth-any-token-accepted') ? this.rootToken : undefined);
  }

  private send(res: ServerResponse, result: EngineResult): void {
    // Optional: an engine's bug may hand back nothing at all (the default below answers it).
    switch (result?.kind) {
      case 'data':
        return this.sendJson(res, result.status ?? 200, dataEnvelope(result.data, { lease_duration: result.leaseDuration }));
      case 'raw':
        if (result.headers) for (const [k, v] of Object.entries(result.headers)) res.setHeader(k, v);
        return this.sendJson(res, result.status, result.body);
      case 'no-content':
        if (res.headersSent) return;
        res.writeHead(204);
        res.end();
        return;
      case 'error':
        // An engine's 405 (an operation the path does not support) is what the fault turns into a 400.
        return this.sendErrors(res, result.status === 405 && this.options.faults.has('secrets.unsupported-method-400') ? 400 : result.status, result.errors);
      default:
        // An engine that answers nothing the service knows is a bug of the reference: a 500 at once,
        // as Vault answers an internal error, and never a request left open until the client gives up.
        return this.sendErrors(res, 500, ['internal error']);
    }
  }

  /** Every status >= 400 carries {"errors":[...]}. */
  sendErrors(res: ServerResponse, status: number, errors: string[]): void {
    const body = this.options.faults.has('secrets.error-body-singular') ? { error: errors.join('; ') } : { errors };
    this.sendJson(res, status, body);
  }

  private sendJson(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const text = JSON.stringify(body);
    const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' };
    if (!(this.options.faults.has('secrets.response-no-content-type') && status < 400)) headers['content-type'] = 'application/json';
    res.writeHead(status, headers);
    res.end(text);
  }
}

/** Decodes each segment; refuses encodings that would change the path's shape. */
function decodePath(raw: string): string | undefined {
  // Without a percent sign every segment decodes to itself: only the dot segments and NUL are left to refuse.
  if (!raw.includes('%')) return DOT_SEGMENT.test(raw) || raw.includes('\u0000') ? undefined : raw;
  const out: string[] = [];
  for (const segment of raw.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (decoded.includes('/') || decoded === '.' || decoded === '..' || decoded.includes('\u0000')) return undefined;
    out.push(decoded);
  }
  return out.join('/');
}

/**
 * Whether a write's body is a form (hashicorp/vault http/handler.go isForm, since Vault 1.4.0,
 * hashicorp/vault#8325): only when the media type is exactly application/x-www-form-urlencoded
 * (parameters and case aside) and the body does not start, after whitespace within its first 512
 * bytes, with '{' or '['. `curl --data @secret.json` sends the form type with a JSON body, as Vault's
 * own docs do it; spec 000 does not require a Content-Type, so such a body is JSON too.
 */
export function isForm(contentType: string | undefined, body: Buffer): boolean {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/x-www-form-urlencoded') return false;
  for (const byte of body.subarray(0, 512)) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte !== 0x7b && byte !== 0x5b;
  }
  return true;
}

/** A form's fields (http/handler.go parseFormRequest): a key given more than once has its values joined with ','. */
function formData(body: Buffer): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const form = new URLSearchParams(body.toString('utf8'));
  for (const key of new Set(form.keys())) out[key] = form.getAll(key).join(',');
  return out;
}

/**
 * Whether a token of namespace `tokenNs` may be used in namespace `requestNs`: its own and those
 * below it (Vault Enterprise's namespaces documentation; openbao vault/request_handling.go CheckToken).
 * Both paths end in '/', so the prefix test stops at segment boundaries.
 */
function tokenReaches(tokenNs: string, requestNs: string, faults: FaultSet): boolean {
  if (faults.has('secrets.ns-child-token-reaches-parent') && tokenNs.startsWith(requestNs)) return true;
  if (faults.has('secrets.ns-token-reaches-prefix-sibling')) return requestNs.startsWith(tokenNs.replace(/\/$/, ''));
  return requestNs.startsWith(tokenNs);
}
