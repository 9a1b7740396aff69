import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { ReferenceBehavior } from '../behavior.ts';
import type { FaultSet } from '../faults/types.ts';
import { BodyError, parseJsonObject, readBody } from '../http/body.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import { Router, type RouteContext, type RouteHandler } from '../http/router.ts';
import type { CertificateAuthority } from './certificate-authority.ts';
import { parseWait } from './durations.ts';
import { describeIntention, IntentionStore } from './intentions.ts';

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

interface AclToken {
  namespace: string;
  /** Services the token may write; '*' for all. */
  serviceWrite: string[];
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
}

const MAX_WAIT_MS = 10 * 60 * 1000;
const DEFAULT_WAIT_MS = 5 * 60 * 1000;
const SERVICE_URI = /^spiffe:\/\/([^/]+)\/ns\/([^/]+)\/dc\/([^/]+)\/svc\/([^/]+)$/;

/** The mesh agent's connect endpoints: authorize, CA roots, leaf certificates. */
export class MeshService {
  private readonly router = new Router<RouteHandler>();
  readonly intentions = new IntentionStore();
  private readonly tokens = new Map<string, AclToken>();
  private readonly leaves = new Map<string, Leaf>();
  private readonly changes = new EventEmitter();
  /** Serials of every certificate the cluster issues, in issuance order. */
  private serial = BigInt(0x1000 + Math.floor(Math.random() * 0x1000));
  private readonly perServiceSerials = new Map<string, bigint>();
  /** Lifetime of new leaves; the reference control interface can shorten it. */
  leafLifetimeMs = 72 * 3600 * 1000;

  constructor(private readonly options: MeshServiceOptions) {
    this.changes.setMaxListeners(0);
    this.tokens.set(options.managementToken, { namespace: 'default', serviceWrite: ['*'] });
    this.router.add('GET', '/v1/agent/connect/ca/roots', (ctx) => this.roots(ctx));
    this.router.add('GET', '/v1/agent/connect/ca/leaf/:service', (ctx) => this.leaf(ctx));
    this.router.add('POST', '/v1/agent/connect/authorize', (ctx) => this.authorize(ctx));
  }

  get trustDomain(): string {
    return this.options.ca.trustDomain;
  }

  /** Reference setup: an ACL token in a namespace with service:write on some services. */
  createToken(namespace: string, serviceWrite: string[]): string {
    const id = randomUUID();
    this.tokens.set(id, { namespace, serviceWrite });
    return id;
  }

  /** Reference setup: rotates the CA; waiters on roots and leaves wake. */
  async rotate(): Promise<string> {
    const root = await this.options.ca.rotate();
    if (!this.options.faults.has('mesh.roots-blocking-ignores-rotation')) this.changes.emit('roots');
    if (!this.options.faults.has('mesh.leaf-blocking-ignores-rotation')) this.changes.emit('leaf');
    return root.ID;
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
    const match = this.router.match(method, url.pathname);
    if (match.kind === 'not-found') {
      req.resume();
      return sendPlainError(res, 404, `Not Found: no endpoint at ${url.pathname}`);
    }
    if (match.kind === 'method-not-allowed') {
      req.resume();
      const headers: Record<string, string> = this.options.faults.has('mesh.405-without-allow') ? {} : { allow: ['OPTIONS', ...match.allowed].join(',') };
      return sendPlainError(res, 405, `method ${method} not allowed`, headers);
    }
    let service: string | undefined;
    try {
      service = match.params.service === undefined ? undefined : decodeURIComponent(match.params.service);
    } catch {
      req.resume();
      return sendPlainError(res, 400, 'invalid service name encoding');
    }
    await match.handler({ req, res, url, params: { ...match.params, ...(service !== undefined ? { service } : {}) } });
  }

  private token(req: IncomingMessage): AclToken | undefined {
    const carrier = this.options.dialect.mesh.token;
    const raw = req.headers[carrier.header.toLowerCase()];
    const fromCarrier = typeof raw === 'string' ? (carrier.scheme ? /^Bearer\s+(.+)$/i.exec(raw)?.[1] : raw) : undefined;
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const id = fromCarrier ?? bearer;
    return id ? this.tokens.get(id.trim()) : undefined;
  }

  private canWrite(token: AclToken | undefined, service: string): boolean {
    return Boolean(token && (token.serviceWrite.includes('*') || token.serviceWrite.includes(service)));
  }

  /** Namespace precedence: body Namespace, then ?ns, then the namespace header, then the token's, then 'default'. */
  private namespace(req: IncomingMessage, url: URL, token: AclToken | undefined, body?: Record<string, unknown>): string {
    const f = this.options.faults;
    const fromBody = typeof body?.Namespace === 'string' && body.Namespace !== '' && !f.has('mesh.ns-body-ignored') ? body.Namespace : undefined;
    const fromQuery = url.searchParams.get('ns') || undefined;
    const h = req.headers[this.options.dialect.mesh.namespaceHeader.toLowerCase()];
    const fromHeader = typeof h === 'string' && h !== '' ? h : undefined;
    const ordered = f.has('mesh.ns-header-over-query') ? [fromBody, fromHeader, fromQuery] : [fromBody, fromQuery, fromHeader];
    return ordered.find(Boolean) ?? token?.namespace ?? 'default';
  }

  /** Parses index and wait; undefined index means a non-blocking query. Writes a 400 and returns null on bad values. */
  private blocking(url: URL, res: ServerResponse): { index?: number; waitMs: number } | null {
    const rawIndex = url.searchParams.get('index');
    const rawWait = url.searchParams.get('wait');
    let index: number | undefined;
    if (rawIndex !== null) {
      if (!/^\d+$/.test(rawIndex) && !this.options.faults.has('mesh.bad-index-accepted')) {
        sendPlainError(res, 400, 'Invalid index');
        return null;
      }
      index = /^\d+$/.test(rawIndex) ? Number(rawIndex) : undefined;
    }
    let waitMs = DEFAULT_WAIT_MS;
    if (rawWait !== null) {
      const parsed = parseWait(rawWait);
      if (parsed === undefined) {
        sendPlainError(res, 400, 'Invalid wait time');
        return null;
      }
      waitMs = parsed;
    }
    return { index, waitMs: Math.min(waitMs, MAX_WAIT_MS) };
  }

  /** Waits for an event, the deadline, or the client going away. */
  private waitFor(event: 'roots' | 'leaf', ms: number, req: IncomingMessage, until?: Date): Promise<void> {
    return new Promise((resolve) => {
      const deadline = until ? Math.min(ms, Math.max(0, until.getTime() - Date.now())) : ms;
      const done = () => {
        clearTimeout(timer);
        this.changes.off(event, done);
        req.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, deadline);
      this.changes.once(event, done);
      req.once('close', done);
    });
  }

  private indexHeaders(index: number): Record<string, string> {
    return this.options.faults.has('mesh.index-header-missing') ? {} : { [this.options.dialect.mesh.indexHeader]: String(Math.max(1, index)) };
  }

  private async roots({ req, res, url }: RouteContext): Promise<void> {
    const f = this.options.faults;
    if (f.has('mesh.roots-require-token') && !this.token(req)) return sendPlainError(res, 403, 'Permission denied: token required');
    const b = this.blocking(url, res);
    if (!b) return;
    const current = () => Math.max(...this.options.ca.roots().map((r) => r.ModifyIndex));
    if (b.index !== undefined && b.index >= current()) await this.waitFor('roots', b.waitMs, req);
    if (res.destroyed) return;
    const roots = this.options.ca.roots().map((root) => {
      const out: Record<string, unknown> = { ...root };
      if (f.has('mesh.roots-missing-signing-key-id')) delete out.SigningKeyID;
      if (f.has('mesh.roots-cert-der-base64')) out.RootCert = root.RootCert.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
      return out;
    });
    const active = f.has('mesh.rotation-keeps-active-id') ? this.options.ca.roots()[0]! : this.options.ca.active.record;
    const activeId = f.has('mesh.roots-active-id-unknown') ? active.ID.split(':').reverse().join(':') : active.ID;
    sendJsonBody(res, 200, { ActiveRootID: activeId, TrustDomain: this.trustDomain, Roots: roots }, this.indexHeaders(current()));
  }

  private leafKey(ns: string, service: string): string {
    return `${ns}/${service}`;
  }

  /** A leaf needs replacing when it is near expiry (less than a tenth of its life left) or its root is no longer active. */
  private needsNewLeaf(leaf: Leaf): boolean {
    const f = this.options.faults;
    if (f.has('mesh.leaf-never-cached')) return true;
    const life = leaf.notAfter.getTime() - leaf.notBefore.getTime();
    const nearExpiry = leaf.notAfter.getTime() - Date.now() < life / 10;
    const rotated = leaf.rootId !== this.options.ca.active.record.ID && !f.has('mesh.leaf-cache-ignores-rotation');
    return nearExpiry || rotated;
  }

  private nextSerial(service: string): bigint {
    if (this.options.faults.has('mesh.leaf-serial-per-service')) {
      const next = (this.perServiceSerials.get(service) ?? 1n) + 1n;
      this.perServiceSerials.set(service, next);
      return next;
    }
    this.serial += 1n;
    return this.serial;
  }

  private async currentLeaf(ns: string, service: string): Promise<Leaf> {
    const key = this.leafKey(ns, service);
    const cached = this.leaves.get(key);
    if (cached && !this.needsNewLeaf(cached)) return cached;
    const uri = `spiffe://${this.trustDomain}/ns/${ns}/dc/${this.options.datacenter}/svc/${service}`;
    const serial = this.nextSerial(service);
    const signed = await this.options.ca.signLeaf(uri, service, serial, this.leafLifetimeMs, this.options.faults.has('mesh.leaf-self-signed'));
    const index = this.options.nextIndex();
    const leaf: Leaf = { service, namespace: ns, serial, ...signed, createIndex: cached?.createIndex ?? index, modifyIndex: index };
    this.leaves.set(key, leaf);
    return leaf;
  }

  private async leaf({ req, res, url, params }: RouteContext): Promise<void> {
    const f = this.options.faults;
    const service = params.service!;
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(service)) return sendPlainError(res, 400, `invalid service name "${service}"`);
    if (f.has('mesh.leaf-requires-catalog') && !['web', 'api', 'db'].includes(service)) return sendPlainError(res, 404, `unknown service "${service}"`);
    const token = this.token(req);
    const ns = this.namespace(req, url, token);
    const allowed = f.has('mesh.leaf-read-suffices') ? Boolean(token) : this.canWrite(token, service);
    if (!allowed) return sendPlainError(res, 403, `Permission denied: token lacks service:write on "${service}"`);
    const b = this.blocking(url, res);
    if (!b) return;
    let leaf = await this.currentLeaf(ns, service);
    if (b.index !== undefined && b.index >= leaf.modifyIndex && !f.has('mesh.leaf-blocking-not-supported')) {
      const renewAt = new Date(leaf.notAfter.getTime() - (leaf.notAfter.getTime() - leaf.notBefore.getTime()) / 10);
      await this.waitFor('leaf', b.waitMs, req, renewAt);
      if (res.destroyed) return;
      leaf = await this.currentLeaf(ns, service);
    }
    const uri = `spiffe://${this.trustDomain}/ns/${ns}/dc/${this.options.datacenter}/svc/${service}`;
    const body: Record<string, unknown> = {
      SerialNumber: leaf.serial.toString(16).padStart(2, '0').match(/../g)!.join(':'),
      CertPEM: leaf.certPem,
      PrivateKeyPEM: f.has('mesh.leaf-wrong-private-key') ? (await this.options.ca.signLeaf(uri, service, 1n, 60_000)).keyPem : leaf.keyPem,
      Service: service,
      ServiceURI: f.has('mesh.leaf-service-uri-mismatch') ? uri.replace(`/ns/${ns}`, '') : uri,
      ValidAfter: leaf.notBefore.toISOString(),
      ValidBefore: new Date(leaf.notAfter.getTime() + (f.has('mesh.leaf-validity-fields-shifted') ? 3_600_000 : 0)).toISOString(),
      Namespace: ns,
      CreateIndex: leaf.createIndex,
      ModifyIndex: leaf.modifyIndex,
    };
    if (f.has('mesh.leaf-missing-service-uri')) delete body.ServiceURI;
    const headers = this.indexHeaders(leaf.modifyIndex);
    if (f.has('mesh.leaf-content-type-text')) {
      const text = JSON.stringify(body);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text), ...headers });
      res.end(text);
      return;
    }
    sendJsonBody(res, 200, body, headers);
  }

  private async authorize({ req, res, url }: RouteContext): Promise<void> {
    const f = this.options.faults;
    let body: Record<string, unknown>;
    try {
      body = parseJsonObject(await readBody(req, 1024 * 1024));
    } catch (err) {
      if (err instanceof BodyError) return sendPlainError(res, err.status, `Request decode failed: ${err.message}`);
      throw err;
    }
    const str = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : undefined);
    const target = str('Target');
    const uri = str('ClientCertURI');
    const serial = str('ClientCertSerial');
    for (const [k, v] of Object.entries(body)) {
      if (['Target', 'ClientCertURI', 'ClientCertSerial', 'Namespace'].includes(k) && v !== undefined && typeof v !== 'string') return sendPlainError(res, 400, `Request decode failed: ${k} must be a string`);
    }
    if (!target) return sendPlainError(res, 400, 'Target service must be specified');
    if (!uri) return sendPlainError(res, 400, 'ClientCertURI must be specified');
    const parsed = SERVICE_URI.exec(uri);
    if (!parsed && !f.has('mesh.authorize-accepts-non-service-uri')) {
      return sendPlainError(res, 400, /^spiffe:\/\//.test(uri) ? 'ClientCertURI not a valid Service identifier' : 'ClientCertURI not a valid Connect identifier');
    }
    if (!serial) return sendPlainError(res, 400, 'ClientCertSerial must be specified');
    if (!/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2})*$/.test(serial) && !f.has('mesh.authorize-serial-unchecked')) return sendPlainError(res, 400, 'ClientCertSerial must be colon-hex encoded');
    const token = this.token(req);
    const ns = this.namespace(req, url, token, body);
    if (!this.canWrite(token, target) && !f.has('mesh.authorize-no-acl')) return sendPlainError(res, 403, `Permission denied: token lacks service:write on "${target}"`);
    const [, , sourceNs = 'default', , source = uri] = parsed ?? [];
    const intention = f.has('mesh.authorize-ignores-source') ? this.intentions.matchDestination(ns, target) : this.intentions.match(sourceNs, source, ns, target);
    if (!intention) {
      return sendJsonBody(res, 200, { Authorized: false, Reason: f.has('mesh.default-reason-text') ? 'no match' : 'Default behavior configured by ACLs' });
    }
    const layer7 = (intention.permissions?.length ?? 0) > 0;
    const authorized = layer7 && !f.has('mesh.authorize-permissions-honoured') ? false : intention.action === 'allow';
    const reason = f.has('mesh.authorize-empty-reason') ? '' : `Matched ${layer7 ? 'L7' : 'L4'} intention: ${describeIntention(intention)}`;
    sendJsonBody(res, 200, { Authorized: authorized, Reason: reason });
  }
}
