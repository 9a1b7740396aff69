import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { readJsonObjectOr4xx } from '../http/body.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import { Router, type RouteContext, type RouteHandler } from '../http/router.ts';

/** A machine the simulated cloud knows: a virtual machine or a scale set, with its managed identity. */
export interface Machine {
  kind: 'vm' | 'vmss';
  name: string;
  subscriptionId: string;
  resourceGroup: string;
  location: string;
  /** The object id of the machine's managed identity (the token's oid). */
  principalId: string;
  groups: string[];
}

/** Deliberately bad tokens the simulator can mint, each one a reason a login must be refused. */
export const TOKEN_VARIANTS = ['good', 'wrong-signature', 'wrong-audience', 'wrong-issuer', 'wrong-tenant', 'expired', 'not-yet-valid', 'alg-none'] as const;
export type TokenVariant = (typeof TOKEN_VARIANTS)[number];

function resourceId(m: Machine): string {
  const type = m.kind === 'vm' ? 'virtualMachines' : 'virtualMachineScaleSets';
  return `/subscriptions/${m.subscriptionId}/resourcegroups/${m.resourceGroup}/providers/Microsoft.Compute/${type}/${m.name}`;
}

/**
 * A stand-in for the cloud behind the cloud-identity auth method: a token issuer for one tenant
 * that publishes its discovery document and signing keys, mints managed-identity tokens for the
 * machines it knows (and deliberately bad ones), and answers what the compute API would say about
 * a machine. Its /simulator routes are for the harness; the rest is what the auth method calls.
 */
export class CloudSimulator {
  readonly tenantId = randomUUID();
  private readonly machines = new Map<string, Machine>();
  private readonly router = new Router<RouteHandler>();
  baseUrl = 'http://127.0.0.1';

  /**
   * The tenant's signing key and a rogue one (for 'wrong-signature'), made when first needed: they
   * are two RSA key generations, most of a reference's start-up, and most runs never log in
   * through the cloud (the fault matrix starts a reference per fault).
   */
  private keyPairs: Promise<{ key: { privateKey: CryptoKey; jwk: JWK; kid: string }; rogue: CryptoKey }> | undefined;

  private constructor(private readonly controlToken: string) {
    this.router.add('GET', '/:tenant/.well-known/openid-configuration', (ctx) => this.discovery(ctx));
    this.router.add('GET', '/:tenant/discovery/keys', (ctx) => this.keySet(ctx));
    this.router.add('GET', '/subscriptions/:sub/resourceGroups/:rg/providers/Microsoft.Compute/:type/:name', (ctx) => this.compute(ctx));
    this.router.add('POST', '/simulator/machines', (ctx) => this.addMachine(ctx));
    this.router.add('POST', '/simulator/tokens', (ctx) => this.mint(ctx));
  }

  static async create(controlToken: string): Promise<CloudSimulator> {
    return new CloudSimulator(controlToken);
  }

  private keys(): Promise<{ key: { privateKey: CryptoKey; jwk: JWK; kid: string }; rogue: CryptoKey }> {
    this.keyPairs ??= (async () => {
      const [{ privateKey, publicKey }, rogue] = await Promise.all([generateKeyPair('RS256', { extractable: true }), generateKeyPair('RS256', { extractable: true })]);
      const kid = randomUUID();
      const jwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
      return { key: { privateKey, jwk, kid }, rogue: rogue.privateKey };
    })();
    return this.keyPairs;
  }

  /** The issuer the tokens of a tenant carry. */
  issuer(tenant = this.tenantId): string {
    return `${this.baseUrl}/${tenant}/`;
  }

  machine(name: string): Machine | undefined {
    return this.machines.get(name);
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
    const match = this.router.match(method, url.pathname);
    if (match.kind !== 'found') {
      req.resume();
      return sendJsonBody(res, match.kind === 'not-found' ? 404 : 405, { error: { code: 'NotFound', message: `no ${method} ${url.pathname}` } });
    }
    if (url.pathname.startsWith('/simulator/') && req.headers.authorization !== `Bearer ${this.controlToken}`) {
      req.resume();
      return sendPlainError(res, 403, 'simulator: missing or wrong Bearer token');
    }
    await match.handler({ req, res, url, params: match.params });
  }

  private discovery({ res, params }: RouteContext): void {
    if (params.tenant !== this.tenantId) return sendJsonBody(res, 400, { error: 'invalid_tenant', error_description: `tenant ${params.tenant} is not known` });
    sendJsonBody(res, 200, { issuer: this.issuer(), jwks_uri: `${this.baseUrl}/${this.tenantId}/discovery/keys`, id_token_signing_alg_values_supported: ['RS256'] });
  }

  private async keySet({ res, params }: RouteContext): Promise<void> {
    if (params.tenant !== this.tenantId) return sendJsonBody(res, 400, { error: 'invalid_tenant' });
    sendJsonBody(res, 200, { keys: [(await this.keys()).key.jwk] });
  }

  /** What the compute API says about a machine: its location and identity. */
  private compute({ res, params }: RouteContext): void {
    const m = this.machines.get(params.name!);
    const type = m?.kind === 'vm' ? 'virtualMachines' : 'virtualMachineScaleSets';
    if (!m || params.type !== type || m.subscriptionId !== params.sub || m.resourceGroup.toLowerCase() !== params.rg!.toLowerCase()) {
      return sendJsonBody(res, 404, { error: { code: 'ResourceNotFound', message: `${params.type}/${params.name} not found` } });
    }
    sendJsonBody(res, 200, { id: resourceId(m), name: m.name, location: m.location, identity: { type: 'SystemAssigned', principalId: m.principalId } });
  }

  private body(ctx: RouteContext): Promise<Record<string, unknown> | undefined> {
    return readJsonObjectOr4xx(ctx.req, ctx.res, 64 * 1024);
  }

  private async addMachine(ctx: RouteContext): Promise<void> {
    const b = await this.body(ctx);
    if (!b) return;
    const s = (k: string, d: string) => (typeof b[k] === 'string' && b[k] !== '' ? (b[k] as string) : d);
    const m: Machine = {
      kind: b.kind === 'vmss' ? 'vmss' : 'vm',
      name: s('name', `machine-${randomUUID().slice(0, 8)}`),
      subscriptionId: s('subscription_id', randomUUID()),
      resourceGroup: s('resource_group', `rg-${randomUUID().slice(0, 6)}`),
      location: s('location', 'westeurope'),
      principalId: s('principal_id', randomUUID()),
      groups: Array.isArray(b.groups) ? b.groups.filter((g): g is string => typeof g === 'string') : [],
    };
    this.machines.set(m.name, m);
    sendJsonBody(ctx.res, 200, { kind: m.kind, name: m.name, subscription_id: m.subscriptionId, resource_group: m.resourceGroup, location: m.location, principal_id: m.principalId, groups: m.groups, tenant_id: this.tenantId });
  }

  /** Mints a managed-identity token for a known machine, good or deliberately bad. */
  private async mint(ctx: RouteContext): Promise<void> {
    const b = await this.body(ctx);
    if (!b) return;
    const m = typeof b.machine === 'string' ? this.machines.get(b.machine) : undefined;
    if (!m) return sendPlainError(ctx.res, 404, 'simulator: unknown machine');
    const variant = (TOKEN_VARIANTS as readonly string[]).includes(String(b.variant ?? 'good')) ? (String(b.variant ?? 'good') as TokenVariant) : undefined;
    if (!variant) return sendPlainError(ctx.res, 400, `simulator: variant must be one of ${TOKEN_VARIANTS.join(', ')}`);
    if (typeof b.audience !== 'string') return sendPlainError(ctx.res, 400, 'simulator: audience (the resource the auth method is configured with) is required');
    const now = Math.floor(Date.now() / 1000);
    const tenant = variant === 'wrong-tenant' ? randomUUID() : this.tenantId;
    const claims: Record<string, unknown> = {
      aud: variant === 'wrong-audience' ? `${b.audience}-other` : b.audience,
      iss: variant === 'wrong-issuer' ? `https://login.invalid/${tenant}/` : this.issuer(tenant),
      tid: tenant,
      oid: m.principalId,
      sub: m.principalId,
      groups: m.groups,
      xms_mirid: resourceId(m),
      xms_az_rid: resourceId(m),
      iat: now - 60,
      nbf: variant === 'not-yet-valid' ? now + 3600 : now - 60,
      exp: variant === 'expired' ? now - 30 : now + 3600,
    };
    let jwt: string;
    if (variant === 'alg-none') {
      jwt = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    } else {
      const { key, rogue } = await this.keys();
      jwt = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' }).sign(variant === 'wrong-signature' ? rogue : key.privateKey);
    }
    sendJsonBody(ctx.res, 200, { jwt });
  }
}
