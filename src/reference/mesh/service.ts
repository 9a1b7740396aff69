import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { ReferenceBehavior } from '../behavior.ts';
import type { FaultSet } from '../faults/types.ts';
import { BodyError, readBody } from '../http/body.ts';
import { AnswerBatch } from '../http/answer-batch.ts';
import { sendJsonBody, sendJsonBytes, sendPlainError } from '../http/plain-errors.ts';
import { Router, type RouteContext, type RouteHandler } from '../http/router.ts';
import { AclTokens, type AclFlaws } from './acl.ts';
import { AuthorizeBodies } from './authorize-request.ts';
import { CaConfigurationRoutes } from './ca-configuration-routes.ts';
import type { CertificateAuthority } from './certificate-authority.ts';
import { registerConsulAdmin } from './consul-admin.ts';
import { ConsulHeaders, type CacheMeta } from './consul-headers.ts';
import { readBlockingParams } from './durations.ts';
import { actionIgnoringPermissions, describeIntention, describeIntentionWithoutAction, IntentionStore, type Intention } from './intentions.ts';
import { MeshNamespaces } from './namespaces.ts';
import { colonHexSerial } from './serial-number.ts';

export interface MeshServiceOptions {
  dialect: Dialect;
  behavior: ReferenceBehavior;
  /** false: like Consul CE (no Namespace fields; namespace header and ns query refused). */
  namespaces: boolean;
  faults: FaultSet;
  ca: CertificateAuthority;
  managementToken: string;
  datacenter: string;
  nextIndex: () => number;
}

interface Leaf {
  service: string;
  namespace: string;
  serial: bigint;
  certPem: string;
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
  rootId: string;
  createIndex: number;
  modifyIndex: number;
  /** When the agent got it signed, for the Age of a cache hit. */
  fetchedAt: number;
  /** When the agent replaces it: see renewalTime. */
  renewAt: number;
  /** Its answer's body, serialised on the first fetch; a renewed leaf is a new Leaf, so it never outlives the certificate. */
  body?: Buffer;
}

/** The roots answer as of one CA version: serialised once, since every agent fetches it often. */
interface RootsAnswer {
  caVersion: number;
  body: Buffer;
  /** The highest ModifyIndex of the roots: the answer's index. */
  index: number;
}

type WaitEnd = 'event' | 'timeout' | 'closed';

/**
 * In the hashicorp dialect a blocking leaf query woken by a root rotation re-issues after a random
 * delay up to this, like Consul's caChangeJitterWindow (agent/leafcert/generate.go, 30 s there),
 * scaled down so the suites stay quick; mesh.leaf.blocking-wakes-on-rotation allows the full 30 s.
 */
const LEAF_REISSUE_SPREAD_MS = 2_000;

/** Consul writes times as Go's RFC 3339 with no fractional part when there is none. */
function goTime(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

/** Query-less request URLs kept parsed (see urlOf). */
const PARSED_PATHS = 256;

/** The mesh agent's connect endpoints: authorize, CA roots, leaf certificates. */
export class MeshService {
  private readonly router = new Router<RouteHandler>();
  readonly intentions = new IntentionStore();
  private readonly acl: AclTokens;
  /** The ACL check made wrong the ways the fault catalog names (none without faults). */
  private readonly aclFlaws: AclFlaws;
  private readonly namespaces: MeshNamespaces;
  private readonly consul: ConsulHeaders;
  private readonly leaves = new Map<string, Leaf>();
  private readonly changes = new EventEmitter();
  private readonly perServiceSerials = new Map<string, bigint>();
  /** When the agent's cache last filled the roots and each intention match (for X-Cache and Age). */
  private rootsCachedAt: number | undefined;
  private readonly intentionMatchCachedAt = new Map<string, number>();
  private rootsAnswer: RootsAnswer | undefined;
  /**
   * Authorize answers' bodies by the intention that decided them (the intention store hands out
   * the same object until its set changes); `noMatchBody` is the answer when none matches.
   */
  private readonly authorizeBodies = new WeakMap<object, Buffer>();
  private noMatchBody: Buffer | undefined;
  /** What each authorize body says, remembered: it depends on the body's bytes alone. */
  private readonly authorizeRequests: AuthorizeBodies;
  private readonly parsedPaths = new Map<string, URL>();
  /** Leaf and roots answers are written together at the end of the loop's turn (see AnswerBatch). */
  private readonly answers = new AnswerBatch();
  /** Lifetime of new leaves: the CA configuration's LeafCertTTL; the reference control interface can shorten it. */
  get leafLifetimeMs(): number {
    return this.options.ca.leafLifetimeMs;
  }

  set leafLifetimeMs(ms: number) {
    this.options.ca.setLeafLifetime(ms);
  }

  constructor(private readonly options: MeshServiceOptions) {
    this.changes.setMaxListeners(0);
    this.acl = new AclTokens(options.dialect, options.nextIndex, options.datacenter);
    this.acl.addManagement(options.managementToken);
    // The faults are fixed at start: the flaws are worked out once, not on every leaf and authorize.
    const f = options.faults;
    this.aclFlaws = {
      exactAsPrefix: f.has('mesh.acl-exact-rule-as-prefix'),
      readAsWrite: f.has('mesh.acl-read-grants-write'),
      anyNamespace: f.has('mesh.acl-token-rules-every-namespace'),
      exactDenyYieldsToPrefix: f.has('mesh.acl-exact-deny-yields-to-prefix'),
      defaultNamespaceOpen: f.has('mesh.acl-namespaced-token-reaches-default'),
    };
    this.acl.deletedTokensKept = f.has('mesh.acl-deleted-token-kept');
    this.acl.policyFlaws = { lastWins: f.has('mesh.acl-merge-last-policy-wins'), datacentersIgnored: f.has('mesh.acl-policy-datacenters-ignored') };
    this.intentions.flaws = { ignoreSourceNamespace: f.has('mesh.intention-source-namespace-ignored'), sourceFirstPrecedence: f.has('mesh.intention-wildcard-destination-outranks-source') };
    this.namespaces = new MeshNamespaces(options.namespaces, options.dialect, options.faults);
    this.consul = new ConsulHeaders(options.dialect);
    this.authorizeRequests = new AuthorizeBodies({
      namespaces: this.namespaces.enabled,
      checkSerial: options.behavior !== 'upstream' && !options.faults.has('mesh.authorize-serial-unchecked'),
      flaws: { keepEscapes: options.faults.has('mesh.authorize-cert-uri-escapes-kept'), acceptNonServiceUri: options.faults.has('mesh.authorize-accepts-non-service-uri') },
    });
    this.router.add('GET', '/v1/agent/connect/ca/roots', (ctx) => this.roots(ctx));
    this.router.add('GET', '/v1/agent/connect/ca/leaf/:service', (ctx) => this.leaf(ctx));
    this.router.add('POST', '/v1/agent/connect/authorize', (ctx) => this.authorize(ctx));
    if (this.hashicorp) {
      const caConfiguration = new CaConfigurationRoutes({
        ca: options.ca,
        acl: this.acl,
        plain: (res, status, message) => this.plain(res, status, message),
        json: (res, body) => sendJsonBody(res, 200, body, this.consul.base()),
        empty: (res) => res.writeHead(200, { ...this.consul.base(), 'content-length': 0 }).end(),
        rotated: () => this.rootsRotated(),
      });
      this.router.add('GET', '/v1/connect/ca/configuration', (ctx) => caConfiguration.get(ctx));
      this.router.add('PUT', '/v1/connect/ca/configuration', (ctx) => caConfiguration.put(ctx));
      // Consul's intention, config-entry, ACL and (Enterprise) namespace endpoints.
      registerConsulAdmin(this.router, { acl: this.acl, namespaces: this.namespaces, intentions: this.intentions, consul: this.consul, nextIndex: options.nextIndex, datacenter: options.datacenter });
    }
  }

  get trustDomain(): string {
    return this.options.ca.trustDomain;
  }

  private get hashicorp(): boolean {
    return this.options.dialect.name === 'hashicorp';
  }

  /** Reference setup: an ACL token in a namespace with service:write on some services (there only). */
  createToken(namespace: string, serviceWrite: string[], serviceRead: string[] = []): string {
    return this.acl.create(namespace, serviceWrite, serviceRead);
  }

  /**
   * Reference setup: a token in a namespace linked to one policy made from ACL rules (HCL), as
   * Consul's ACL.PolicySet and ACL.TokenSet make them; the policy can be changed and the token
   * deleted later (a change holds for the next request).
   */
  createRulesToken(namespace: string, rules: string): { secret: string; accessor: string; policyId: string } {
    const name = `control-${randomUUID()}`;
    const policy = this.acl.setPolicy({ Name: name, Rules: rules }, namespace);
    const token = this.acl.createToken({ Description: 'reference control interface token', Policies: [{ ID: policy.id }] }, namespace);
    return { secret: token.secret, accessor: token.accessor, policyId: policy.id };
  }

  /**
   * Reference setup: a token in a namespace linked to several policies, each made from ACL rules
   * (HCL) and the datacenters it is scoped to (none: every datacenter), in the order given, as
   * Consul's ACL.PolicySet and ACL.TokenSet make them.
   */
  createPoliciesToken(namespace: string, policies: { rules: string; datacenters?: string[] }[]): { secret: string; accessor: string; policyIds: string[] } {
    const ids = policies.map((p) => this.acl.setPolicy({ Name: `control-${randomUUID()}`, Rules: p.rules, ...(p.datacenters ? { Datacenters: p.datacenters } : {}) }, namespace).id);
    const token = this.acl.createToken({ Description: 'reference control interface token', Policies: ids.map((ID) => ({ ID })) }, namespace);
    return { secret: token.secret, accessor: token.accessor, policyIds: ids };
  }

  /** Reference setup: replaces the rules of a policy createRulesToken made; false when there is none. */
  setPolicyRules(id: string, rules: string): boolean {
    const policy = this.acl.policy(id);
    if (!policy) return false;
    this.acl.setPolicy({ Name: policy.name, Description: policy.description, Rules: rules }, policy.namespace, id);
    return true;
  }

  /** Reference setup: deletes a token by its accessor. */
  deleteToken(accessor: string): void {
    this.acl.deleteToken(accessor, undefined);
  }

  /** Reference setup: makes a namespace; false when namespaces are off (Consul CE) or the name is bad. */
  createNamespace(name: string): boolean {
    return this.namespaces.create(name);
  }

  /** Reference setup: rotates the CA the way a new key in its configuration does; waiters on roots and leaves wake. */
  async rotate(): Promise<string> {
    const root = await this.options.ca.rotate();
    this.rootsRotated();
    return root.ID;
  }

  private rootsRotated(): void {
    // The agent's roots cache refreshes in the background: the next read is a (fresh) hit.
    if (this.rootsCachedAt !== undefined) this.rootsCachedAt = Date.now();
    if (!this.options.faults.has('mesh.roots-blocking-ignores-rotation')) this.changes.emit('roots');
    if (!this.options.faults.has('mesh.leaf-blocking-ignores-rotation')) this.changes.emit('leaf');
  }

  /** Plain-text error, with the headers Consul puts on every answer in the hashicorp dialect. */
  private plain(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    sendPlainError(res, status, message, { ...this.consul.base(), ...headers });
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const url = this.urlOf(req.url ?? '/');
    const match = this.router.match(method, url.pathname);
    if (match.kind === 'not-found') {
      req.resume();
      // Consul's index handler (agent/http.go HTTPHandlers.Index).
      return this.plain(res, 404, this.hashicorp ? 'Invalid URL path: not a recognized HTTP API endpoint\n' : `Not Found: no endpoint at ${url.pathname}`);
    }
    if (match.kind === 'method-not-allowed') {
      req.resume();
      const allow = ['OPTIONS', ...match.allowed].join(',');
      // Consul answers OPTIONS itself with the endpoint's methods (agent/http.go HTTPHandlers.wrap).
      if (method === 'OPTIONS' && this.hashicorp) {
        res.writeHead(200, { ...this.consul.base(), allow, 'content-length': 0 });
        res.end();
        return;
      }
      const headers: Record<string, string> = this.options.faults.has('mesh.405-without-allow') ? {} : { allow };
      return this.plain(res, 405, `method ${method} not allowed`, headers);
    }
    let service: string | undefined;
    try {
      service = match.params.service === undefined ? undefined : decodeURIComponent(match.params.service);
    } catch {
      req.resume();
      return this.plain(res, 400, 'invalid service name encoding');
    }
    await match.handler({ req, res, url, params: { ...match.params, ...(service !== undefined ? { service } : {}) } });
  }

  /**
   * The request's URL. One without a query is parsed once and shared (handlers only read it): a
   * proxy asks authorize, roots and its leaf over and over, and a URL costs about 0.75 µs to parse.
   */
  private urlOf(raw: string): URL {
    if (raw.includes('?')) return new URL(raw, 'http://reference.invalid');
    let url = this.parsedPaths.get(raw);
    if (!url) {
      if (this.parsedPaths.size >= PARSED_PATHS) this.parsedPaths.clear();
      this.parsedPaths.set(raw, (url = new URL(raw, 'http://reference.invalid')));
    }
    return url;
  }

  /** The request's index and wait (readBlockingParams); writes a 400 and returns null on bad values. */
  private blocking(url: URL, res: ServerResponse): { index?: number; waitMs: number } | null {
    const b = readBlockingParams(url, { hashicorp: this.hashicorp, acceptBadIndex: this.options.faults.has('mesh.bad-index-accepted') });
    if (!b.ok) {
      this.plain(res, 400, b.message);
      return null;
    }
    return b;
  }

  /** Waits for an event, the deadline, or the client going away; says which came first. */
  private waitFor(event: 'roots' | 'leaf', ms: number, req: IncomingMessage, until?: Date): Promise<WaitEnd> {
    return new Promise((resolve) => {
      const deadline = until ? Math.min(ms, Math.max(0, until.getTime() - Date.now())) : ms;
      const done = (why: WaitEnd) => () => {
        clearTimeout(timer);
        this.changes.off(event, onEvent);
        req.off('close', onClose);
        resolve(why);
      };
      const onEvent = done('event');
      const onClose = done('closed');
      const timer = setTimeout(done('timeout'), deadline);
      this.changes.once(event, onEvent);
      req.once('close', onClose);
    });
  }

  /** Sleeps up to `ms`, ending early if the client goes away. */
  private pause(ms: number, req: IncomingMessage): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        req.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      req.once('close', done);
    });
  }

  private indexHeaders(index: number): Record<string, string> {
    return this.options.faults.has('mesh.index-header-missing') ? {} : { [this.options.dialect.mesh.indexHeader]: String(Math.max(1, index)) };
  }

  private async roots({ req, res, url }: RouteContext): Promise<void> {
    const f = this.options.faults;
    if (f.has('mesh.roots-require-token') && !this.acl.resolve(this.acl.secretOf(req, url))) return this.plain(res, 403, 'Permission denied: token required');
    const b = this.blocking(url, res);
    if (!b) return;
    if (b.index !== undefined && (b.index >= this.currentRoots().index || f.has('mesh.roots-blocks-on-older-index'))) await this.waitFor('roots', b.waitMs, req);
    if (res.destroyed) return;
    const answer = this.currentRoots();
    const cache: CacheMeta = this.rootsCachedAt === undefined ? { hit: false } : { hit: true, ageMs: Date.now() - this.rootsCachedAt };
    this.rootsCachedAt ??= Date.now();
    const headers = { ...this.consul.cache(cache), ...this.consul.queryMeta(), ...this.indexHeaders(answer.index) };
    return this.answers.defer(() => sendJsonBytes(res, 200, answer.body, headers));
  }

  /** The roots answer's body and index, serialised again only when the CA changed (a rotation, a new configuration). */
  private currentRoots(): RootsAnswer {
    const caVersion = this.options.ca.version;
    if (this.rootsAnswer?.caVersion === caVersion) return this.rootsAnswer;
    const f = this.options.faults;
    const roots = this.options.ca.roots().map((root) => {
      const out: Record<string, unknown> = { ...root };
      if (f.has('mesh.roots-missing-signing-key-id')) delete out.SigningKeyID;
      if (f.has('mesh.rotation-without-cross-signing')) out.IntermediateCerts = null;
      if (f.has('mesh.roots-cert-der-base64')) out.RootCert = root.RootCert.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
      return out;
    });
    const active = f.has('mesh.rotation-keeps-active-id') ? this.options.ca.roots()[0]! : this.options.ca.active.record;
    const activeId = f.has('mesh.roots-active-id-unknown') ? active.ID.split(':').reverse().join(':') : active.ID;
    const body = Buffer.from(JSON.stringify({ ActiveRootID: activeId, TrustDomain: this.trustDomain, Roots: roots }));
    this.rootsAnswer = { caVersion, body, index: Math.max(...roots.map((r) => r.ModifyIndex as number)) };
    return this.rootsAnswer;
  }

  private leafKey(ns: string, service: string): string {
    if (this.options.faults.has('mesh.leaf-cache-ignores-namespace')) return service;
    // The fault mesh.leaf-cache-key-joined: names joined with a character both may hold, so (a, b-c) and (a-b, c) share a leaf.
    if (this.options.faults.has('mesh.leaf-cache-key-joined')) return `${ns}-${service}`;
    return `${ns}/${service}`;
  }

  /** A leaf needs replacing when it is near expiry (its renewal time came) or its root is no longer active. */
  private needsNewLeaf(leaf: Leaf, blocking: boolean): boolean {
    const f = this.options.faults;
    if (f.has('mesh.leaf-never-cached')) return true;
    const expiryIgnored = blocking ? f.has('mesh.leaf-blocking-ignores-expiry') : f.has('mesh.leaf-cache-ignores-expiry');
    const nearExpiry = Date.now() >= leaf.renewAt && !expiryIgnored;
    return nearExpiry || this.rotatedSince(leaf);
  }

  /**
   * When a leaf counts as near expiry. The spec dialect: in the last tenth of its life. The hashicorp
   * dialect as Consul's agent (agent/leafcert/util.go calculateSoftExpiry, generate.go
   * attemptLeafRefresh): at a random point between 60 % and 90 % of its life, and at once for a life
   * under 10 minutes; Consul draws the point again on each query, one draw per leaf is the same spread.
   */
  private renewalTime(notBefore: Date, notAfter: Date): number {
    const life = notAfter.getTime() - notBefore.getTime();
    if (!this.hashicorp) return notAfter.getTime() - life / 10;
    if (life < 10 * 60_000) return notBefore.getTime();
    return notBefore.getTime() + life * (0.6 + 0.3 * Math.random());
  }

  private rotatedSince(leaf: Leaf): boolean {
    return leaf.rootId !== this.options.ca.active.record.ID && !this.options.faults.has('mesh.leaf-cache-ignores-rotation');
  }

  private nextSerial(service: string): bigint {
    if (this.options.faults.has('mesh.leaf-serial-beyond-64-bit')) return this.options.ca.nextSerial() + 2n ** 64n;
    if (this.options.faults.has('mesh.leaf-serial-per-service')) {
      const next = (this.perServiceSerials.get(service) ?? 1n) + 1n;
      this.perServiceSerials.set(service, next);
      return next;
    }
    return this.options.ca.nextSerial();
  }

  /** The cached leaf unless it must be replaced; `renew` replaces it regardless (its renewal time came). */
  private async currentLeaf(ns: string, service: string, { renew = false, blocking = false } = {}): Promise<Leaf> {
    const key = this.leafKey(ns, service);
    const cached = this.leaves.get(key);
    if (cached && !renew && !this.needsNewLeaf(cached, blocking)) return cached;
    const uri = `spiffe://${this.trustDomain}/ns/${ns}/dc/${this.options.datacenter}/svc/${service}`;
    const serial = this.nextSerial(service);
    const f = this.options.faults;
    const signed = await this.options.ca.signLeaf(uri, service, serial, this.leafLifetimeMs, { selfSigned: f.has('mesh.leaf-self-signed'), serverAuthOnly: f.has('mesh.leaf-server-auth-only'), keyCertSign: f.has('mesh.leaf-key-cert-sign') });
    const index = this.options.nextIndex();
    const leaf: Leaf = { service, namespace: ns, serial, ...signed, createIndex: cached?.createIndex ?? index, modifyIndex: index, fetchedAt: Date.now(), renewAt: this.renewalTime(signed.notBefore, signed.notAfter) };
    this.leaves.set(key, leaf);
    return leaf;
  }

  /**
   * A blocking leaf query: waits until the leaf must be replaced (rotation, near expiry) or the
   * wait elapses. Woken by a rotation, the hashicorp dialect re-issues after a random delay within
   * LEAF_REISSUE_SPREAD_MS; a delay past the wait ends the query with the old leaf, as in Consul.
   */
  private async blockForLeaf(req: IncomingMessage, ns: string, service: string, leaf: Leaf, waitMs: number): Promise<Leaf | undefined> {
    const deadline = Date.now() + waitMs;
    const renewAt = new Date(leaf.renewAt);
    const watchExpiry = !this.options.faults.has('mesh.leaf-blocking-ignores-expiry');
    const end = await this.waitFor('leaf', waitMs, req, watchExpiry ? renewAt : undefined);
    if (end === 'closed') return undefined;
    // The timer that ended the wait was the renewal time, not the wait: the timer may fire on the
    // very millisecond, when the near-expiry test alone would still keep the leaf.
    if (end === 'timeout' && watchExpiry && renewAt.getTime() < deadline) return this.currentLeaf(ns, service, { renew: true });
    if (end === 'event' && this.hashicorp && this.rotatedSince(leaf)) {
      const spread = Math.random() * LEAF_REISSUE_SPREAD_MS;
      const left = deadline - Date.now();
      await this.pause(Math.min(spread, left), req);
      if (spread >= left) return leaf;
    }
    return this.currentLeaf(ns, service, { blocking: true });
  }

  private async leaf({ req, res, url, params }: RouteContext): Promise<void> {
    const f = this.options.faults;
    const service = params.service!;
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(service)) return this.plain(res, 400, `invalid service name "${service}"`);
    if (f.has('mesh.leaf-requires-catalog') && !['web', 'api', 'db'].includes(service)) return this.plain(res, 404, `unknown service "${service}"`);
    // Consul's order (agent/agent_endpoint.go AgentConnectCALeafCert): namespace, then the query
    // parameters, then the ACL check of the signing request.
    const secret = this.acl.secretOf(req, url);
    const token = this.acl.resolve(secret);
    const choice = this.namespaces.select(req, url, token?.namespace);
    if (!choice.ok) return this.plain(res, choice.status, choice.message);
    const ns = choice.namespace;
    const b = this.blocking(url, res);
    if (!b) return;
    if (f.has('mesh.leaf-blocking-skips-acl') && b.index !== undefined && this.leaves.has(this.leafKey(ns, service))) {
      // The fault: a blocking query for a leaf the agent holds is answered from its cache unchecked.
    } else if (f.has('mesh.leaf-read-suffices')) {
      if (!token) return this.plain(res, 403, 'ACL not found');
    } else {
      const denial = this.acl.checkServiceWrite(secret, ns, service, this.aclFlaws);
      if (denial) return f.has('mesh.leaf-acl-error-500') ? this.plain(res, 500, 'rpc error making call: internal error') : this.plain(res, denial.status, denial.message);
    }
    let leaf = await this.currentLeaf(ns, service, { blocking: b.index !== undefined });
    let cache: CacheMeta = { hit: false };
    if (b.index !== undefined && (b.index >= leaf.modifyIndex || f.has('mesh.leaf-blocks-on-older-index')) && !f.has('mesh.leaf-blocking-not-supported')) {
      const woken = await this.blockForLeaf(req, ns, service, leaf, b.waitMs);
      if (!woken || res.destroyed) return;
      leaf = woken;
    } else if (b.index !== undefined) {
      // A blocking query whose index is already behind is answered from the cache
      // (agent/leafcert/leafcert.go Manager.internalGet); a non-blocking one always revalidates.
      cache = { hit: true, ageMs: Date.now() - leaf.fetchedAt };
    }
    const headers = { ...this.consul.cache(cache), ...this.indexHeaders(leaf.modifyIndex) };
    const body = leaf.body ?? (await this.leafBody(leaf));
    if (f.has('mesh.leaf-content-type-text')) {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length, ...headers });
      res.end(body);
      return;
    }
    return this.answers.defer(() => sendJsonBytes(res, 200, body, headers));
  }

  /**
   * A leaf answer's body: serialised once per certificate and kept with it, except under the
   * fault that hands out a freshly made key on every fetch.
   */
  private async leafBody(leaf: Leaf): Promise<Buffer> {
    if (leaf.body) return leaf.body;
    const f = this.options.faults;
    const { service, namespace: ns } = leaf;
    const uri = `spiffe://${this.trustDomain}/ns/${ns}/dc/${this.options.datacenter}/svc/${service}`;
    const time = (d: Date) => (this.hashicorp ? goTime(d) : d.toISOString());
    const body: Record<string, unknown> = {
      SerialNumber: colonHexSerial(leaf.serial),
      CertPEM: f.has('mesh.rotation-without-cross-signing') ? leaf.certPem.replace(/(-----END CERTIFICATE-----\n)[\s\S]*$/, '$1') : leaf.certPem,
      PrivateKeyPEM: f.has('mesh.leaf-wrong-private-key') ? (await this.options.ca.signLeaf(uri, service, 1n, 60_000)).keyPem : leaf.keyPem,
      Service: service,
      ServiceURI: f.has('mesh.leaf-service-uri-mismatch') ? uri.replace(`/ns/${ns}`, '') : uri,
      ValidAfter: time(leaf.notBefore),
      ValidBefore: time(new Date(leaf.notAfter.getTime() + (f.has('mesh.leaf-validity-fields-shifted') ? 3_600_000 : 0))),
      CreateIndex: leaf.createIndex,
      ModifyIndex: leaf.modifyIndex,
    };
    // Consul CE has no Namespace here: IssuedCert's EnterpriseMeta is empty there.
    if (this.namespaces.enabled && !f.has('mesh.leaf-missing-namespace')) body.Namespace = ns;
    if (f.has('mesh.leaf-missing-service-uri')) delete body.ServiceURI;
    const bytes = Buffer.from(JSON.stringify(body));
    if (!f.has('mesh.leaf-wrong-private-key')) leaf.body = bytes;
    return bytes;
  }

  /**
   * Authorize, in Consul's order (agent/agent_endpoint.go AgentConnectAuthorize): namespace
   * parameters, body, Target, ClientCertURI, the ACL check, then the intentions. The spec behaviour
   * also refuses a missing or non-colon-hex ClientCertSerial (a SHOULD rule); the upstream behaviour
   * never reads it, as Consul does not.
   */
  private async authorize({ req, res, url }: RouteContext): Promise<void> {
    const f = this.options.faults;
    const early = this.namespaces.select(req, url, undefined);
    if (!early.ok) {
      req.resume();
      return this.plain(res, early.status, early.message);
    }
    let raw: Buffer;
    try {
      raw = await readBody(req, 1024 * 1024);
    } catch (err) {
      if (err instanceof BodyError) return this.plain(res, err.status, `Request decode failed: ${err.message}`);
      throw err;
    }
    const said = this.authorizeRequests.outcome(raw);
    if (!said.ok) return this.plain(res, said.status, said.message);
    const { target, bodyNamespace, sourceNs, source } = said;
    const secret = this.acl.secretOf(req, url);
    const choice = this.namespaces.select(req, url, this.acl.resolve(secret)?.namespace, bodyNamespace);
    if (!choice.ok) return this.plain(res, choice.status, choice.message);
    const ns = choice.namespace;
    if (!f.has('mesh.authorize-no-acl')) {
      const denial = f.has('mesh.authorize-acl-on-source') ? this.acl.checkServiceWrite(secret, sourceNs, source, this.aclFlaws) : this.acl.checkServiceWrite(secret, ns, target, this.aclFlaws);
      if (denial) return f.has('mesh.authorize-acl-error-500') ? this.plain(res, 500, 'rpc error making call: internal error') : this.plain(res, denial.status, denial.message);
    }
    const intention = f.has('mesh.authorize-ignores-source') ? this.intentions.matchDestination(ns, target) : this.intentions.match(sourceNs, source, ns, target);
    const matchKey = `${ns}/${target}`;
    const cachedAt = this.intentionMatchCachedAt.get(matchKey);
    if (cachedAt === undefined) this.intentionMatchCachedAt.set(matchKey, Date.now());
    const headers = this.consul.cache(cachedAt === undefined ? { hit: false } : { hit: true, ageMs: Date.now() - cachedAt });
    sendJsonBytes(res, 200, this.authorizeBody(intention), headers);
  }

  /**
   * The decision and its Reason for the intention that matched (or none): serialised once per
   * intention object, which the store replaces whenever its set changes.
   */
  private authorizeBody(intention: Intention | undefined): Buffer {
    const f = this.options.faults;
    if (!intention) {
      this.noMatchBody ??= Buffer.from(JSON.stringify({ Authorized: false, Reason: f.has('mesh.default-reason-text') ? 'no match' : 'Default behavior configured by ACLs' }));
      return this.noMatchBody;
    }
    const known = this.authorizeBodies.get(intention);
    if (known) return known;
    const layer7 = (intention.permissions?.length ?? 0) > 0;
    const authorized = layer7 && !f.has('mesh.authorize-permissions-honoured') ? false : actionIgnoringPermissions(intention) === 'allow';
    const described = f.has('mesh.authorize-reason-without-action') ? describeIntentionWithoutAction(intention) : describeIntention(intention, this.hashicorp ? 'consul' : 'spec');
    const reason = f.has('mesh.authorize-empty-reason') ? '' : `Matched ${layer7 ? 'L7' : 'L4'} intention: ${described}`;
    const body = Buffer.from(JSON.stringify({ Authorized: authorized, Reason: reason }));
    this.authorizeBodies.set(intention, body);
    return body;
  }
}
