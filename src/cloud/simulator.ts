import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { BodyRefused, readSmallBody, sendJson, sendText } from './http-answers.ts';

/**
 * The hosts of Microsoft's public cloud the simulator answers as when a product's Azure plugin is
 * routed to it through its proxy (cloud.AzurePublic in azure-sdk-for-go: the directory's authority
 * host and Resource Manager's endpoint).
 */
export const DIRECTORY_HOST = 'login.microsoftonline.com';
export const MANAGEMENT_HOST = 'management.azure.com';
export const SIMULATED_HOSTS = [DIRECTORY_HOST, MANAGEMENT_HOST] as const;
export type SimulatedHost = (typeof SIMULATED_HOSTS)[number];

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

/** What the simulator knows of a machine, as its control route answers it. */
export interface MachineRecord {
  kind: 'vm' | 'vmss';
  name: string;
  subscription_id: string;
  resource_group: string;
  location: string;
  principal_id: string;
  groups: string[];
  tenant_id: string;
}

function computeType(kind: Machine['kind']): 'virtualMachines' | 'virtualMachineScaleSets' {
  return kind === 'vm' ? 'virtualMachines' : 'virtualMachineScaleSets';
}

/** The machine's id as Resource Manager answers it. */
function resourceId(m: Machine): string {
  return `/subscriptions/${m.subscriptionId}/resourceGroups/${m.resourceGroup}/providers/Microsoft.Compute/${computeType(m.kind)}/${m.name}`;
}

/**
 * The machine's id as a managed-identity token carries it (xms_mirid, xms_az_rid): Azure writes
 * "resourcegroups" in lower case there (vault-plugin-auth-azure path_login.go fmtRID).
 */
function claimResourceId(m: Machine): string {
  return `/subscriptions/${m.subscriptionId}/resourcegroups/${m.resourceGroup}/providers/Microsoft.Compute/${computeType(m.kind)}/${m.name}`;
}

/** How long a client-credentials access token lives (Azure AD's usual hour). */
const ACCESS_TOKEN_SECONDS = 3600;

interface Route {
  method: string;
  path: RegExp;
  /** Where the route is served: the directory's host, Resource Manager's, or the plain listener only. */
  on: SimulatedHost | 'plain';
  handle: (ctx: Call, groups: string[]) => void | Promise<void>;
}

interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The scheme and host the caller reached the simulator at, for the URLs it hands out. */
  origin: string;
  /** The host of Microsoft's cloud the call came in as (through the proxy); undefined on the plain listener. */
  reachedAs?: SimulatedHost;
}

/**
 * A stand-in for the cloud behind the cloud-identity auth method (Azure): a directory (Azure AD)
 * for one tenant that publishes its discovery documents and signing keys, mints managed-identity
 * tokens for the machines it knows (and deliberately bad ones) and client-credentials tokens for
 * the auth method's own calls, and a compute API (Resource Manager) that answers what it says about
 * a machine.
 *
 * It is reached two ways. The embedded reference calls its plain listener. A real product's Azure
 * plugin is routed to it through CloudProxy, which ends the plugin's TLS to login.microsoftonline.com
 * and management.azure.com and hands the requests here with the host they were meant for; those
 * answer as the real hosts do for what the plugin (openbao-plugins auth/azure v0.21.0 and
 * hashicorp/vault-plugin-auth-azure, through azure-sdk-for-go and go-oidc) asks. The /simulator
 * routes are for the harness, on the plain listener only, with the control token.
 */
export class CloudSimulator {
  readonly tenantId = randomUUID();
  private readonly machines = new Map<string, Machine>();
  /** Client-credentials access tokens handed out, with when each expires (ms). */
  private readonly accessTokens = new Map<string, number>();
  private readonly routes: Route[];
  baseUrl = 'http://127.0.0.1';

  /**
   * The tenant's signing key and a rogue one (for 'wrong-signature'), made when first needed: they
   * are two RSA key generations, most of a reference's start-up, and most runs never log in
   * through the cloud (the fault matrix starts a reference per fault).
   */
  private keyPairs: Promise<{ key: { privateKey: CryptoKey; jwk: JWK; kid: string }; rogue: CryptoKey }> | undefined;

  private constructor(private readonly controlToken: string) {
    const d = DIRECTORY_HOST;
    const m = MANAGEMENT_HOST;
    this.routes = [
      { method: 'GET', on: d, path: /^\/([^/]+)\/\.well-known\/openid-configuration$/, handle: (c, [t]) => this.discovery(c, t!) },
      { method: 'GET', on: d, path: /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/, handle: (c, [t]) => this.discoveryV2(c, t!) },
      { method: 'GET', on: d, path: /^\/([^/]+)\/discovery\/(?:v2\.0\/)?keys$/, handle: (c, [t]) => this.keySet(c, t!) },
      { method: 'GET', on: d, path: /^\/common\/discovery\/instance$/, handle: (c) => this.instanceDiscovery(c) },
      { method: 'POST', on: d, path: /^\/([^/]+)\/oauth2\/(?:v2\.0\/)?token$/, handle: (c, [t]) => this.clientCredentials(c, t!) },
      {
        method: 'GET',
        on: m,
        path: /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/(virtualMachines|virtualMachineScaleSets)\/([^/]+)$/i,
        handle: (c, [sub, rg, type, name]) => this.compute(c, sub!, rg!, type!, name!),
      },
      { method: 'POST', on: 'plain', path: /^\/simulator\/machines$/, handle: (c) => this.addMachineRoute(c) },
      { method: 'POST', on: 'plain', path: /^\/simulator\/tokens$/, handle: (c) => this.mintRoute(c) },
    ];
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

  /**
   * The issuer of a tenant's managed-identity tokens, as Azure AD's (v1) discovery document names
   * it; a verifier learns it from there (the Azure plugins' newAzureProvider), never from the URL
   * it fetched the document at.
   */
  issuer(tenant = this.tenantId): string {
    return `https://sts.windows.net/${tenant}/`;
  }

  machine(name: string): Machine | undefined {
    return this.machines.get(name.toLowerCase());
  }

  /**
   * Answers one request. `reachedAs` is the host of Microsoft's cloud the request was meant for
   * when it came through the proxy (only that host's routes answer, as the real host's would);
   * without it, the plain listener serves every route, the harness's too.
   */
  async handle(req: IncomingMessage, res: ServerResponse, method: string, reachedAs?: SimulatedHost): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const origin = reachedAs ? `https://${reachedAs}` : `http://${req.headers.host ?? new URL(this.baseUrl).host}`;
    const serves = (r: Route) => (reachedAs ? r.on === reachedAs : true);
    let pathKnown = false;
    for (const route of this.routes) {
      const m = route.path.exec(url.pathname);
      if (!m || !serves(route)) continue;
      pathKnown = true;
      if (route.method !== method) continue;
      if (route.on === 'plain' && req.headers.authorization !== `Bearer ${this.controlToken}`) {
        req.resume();
        return sendText(res, 403, 'simulator: missing or wrong Bearer token');
      }
      return route.handle({ req, res, url, origin, reachedAs }, m.slice(1));
    }
    req.resume();
    sendJson(res, pathKnown ? 405 : 404, { error: { code: pathKnown ? 'MethodNotAllowed' : 'NotFound', message: `no ${method} ${url.pathname}` } });
  }

  /** Azure AD's answer for a tenant it does not know (AADSTS90002). */
  private unknownTenant(res: ServerResponse, tenant: string): void {
    sendJson(res, 400, { error: 'invalid_tenant', error_description: `AADSTS90002: Tenant '${tenant}' not found.` });
  }

  private discovery({ res, origin }: Call, tenant: string): void {
    if (tenant !== this.tenantId) return this.unknownTenant(res, tenant);
    sendJson(res, 200, {
      issuer: this.issuer(),
      jwks_uri: `${origin}/${tenant}/discovery/keys`,
      token_endpoint: `${origin}/${tenant}/oauth2/token`,
      authorization_endpoint: `${origin}/${tenant}/oauth2/authorize`,
      response_types_supported: ['code', 'id_token', 'code id_token', 'token id_token', 'token'],
      subject_types_supported: ['pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
  }

  /** The v2.0 document MSAL reads (through instance discovery) before asking for a client-credentials token. */
  private discoveryV2({ res, origin }: Call, tenant: string): void {
    if (tenant !== this.tenantId) return this.unknownTenant(res, tenant);
    sendJson(res, 200, {
      issuer: `${origin}/${tenant}/v2.0`,
      jwks_uri: `${origin}/${tenant}/discovery/v2.0/keys`,
      token_endpoint: `${origin}/${tenant}/oauth2/v2.0/token`,
      authorization_endpoint: `${origin}/${tenant}/oauth2/v2.0/authorize`,
      response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
      subject_types_supported: ['pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
    });
  }

  /** MSAL's instance discovery: where the tenant of an authorization endpoint publishes its v2.0 document. */
  private instanceDiscovery({ res, url, origin }: Call): void {
    const endpoint = url.searchParams.get('authorization_endpoint') ?? '';
    const tenant = URL.canParse(endpoint) ? new URL(endpoint).pathname.split('/')[1] ?? '' : '';
    if (!tenant) return sendJson(res, 400, { error: 'invalid_instance', error_description: 'AADSTS50049: Unknown or invalid instance.' });
    const host = new URL(origin).host;
    sendJson(res, 200, {
      tenant_discovery_endpoint: `${origin}/${tenant}/v2.0/.well-known/openid-configuration`,
      'api-version': '1.1',
      metadata: [{ preferred_network: host, preferred_cache: host, aliases: [host] }],
    });
  }

  private async keySet({ res }: Call, tenant: string): Promise<void> {
    if (tenant !== this.tenantId) return this.unknownTenant(res, tenant);
    sendJson(res, 200, { keys: [(await this.keys()).key.jwk] });
  }

  /**
   * The client-credentials grant the auth method uses for its own calls to the compute API (its
   * config's client_id and client_secret). Any non-empty pair is taken: the simulator keeps no
   * application registrations, and what is judged is the auth method, not the directory.
   */
  private async clientCredentials({ req, res }: Call, tenant: string): Promise<void> {
    let form: URLSearchParams;
    try {
      form = new URLSearchParams(await readSmallBody(req, 64 * 1024));
    } catch (err) {
      if (!(err instanceof BodyRefused)) throw err;
      return sendJson(res, 400, { error: 'invalid_request', error_description: err.message });
    }
    if (tenant !== this.tenantId) return this.unknownTenant(res, tenant);
    if (form.get('grant_type') !== 'client_credentials') return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'AADSTS70003: The app requested an unsupported grant type.' });
    for (const field of ['client_id', 'client_secret', 'scope']) {
      if (!form.get(field)) return sendJson(res, field === 'client_secret' ? 401 : 400, { error: field === 'client_secret' ? 'invalid_client' : 'invalid_request', error_description: `AADSTS900144: The request body must contain the following parameter: '${field}'.` });
    }
    const now = Date.now();
    for (const [t, expires] of this.accessTokens) if (expires <= now) this.accessTokens.delete(t);
    const token = randomBytes(32).toString('base64url');
    this.accessTokens.set(token, now + ACCESS_TOKEN_SECONDS * 1000);
    sendJson(res, 200, { token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, ext_expires_in: ACCESS_TOKEN_SECONDS, access_token: token });
  }

  /**
   * What the compute API says about a machine: its location and identity. Through the proxy it
   * asks what Resource Manager asks: a bearer token from the directory and an api-version; the
   * plain listener (the embedded reference's way in) takes neither.
   */
  private compute({ req, res, url, reachedAs }: Call, sub: string, rg: string, type: string, name: string): void {
    req.resume();
    if (reachedAs) {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const expires = bearer ? this.accessTokens.get(bearer) : undefined;
      if (!expires || expires <= Date.now()) {
        return sendJson(res, 401, { error: { code: bearer ? 'InvalidAuthenticationToken' : 'AuthenticationFailed', message: bearer ? 'The access token is invalid.' : "Authentication failed. The 'Authorization' header is missing." } });
      }
      if (!url.searchParams.get('api-version')) {
        return sendJson(res, 400, { error: { code: 'MissingApiVersionParameter', message: "The api-version query parameter (?api-version=) is required for all requests." } });
      }
    }
    const m = this.machine(decodeURIComponent(name));
    const wanted = computeType(m?.kind ?? 'vm');
    if (!m || type.toLowerCase() !== wanted.toLowerCase() || m.subscriptionId.toLowerCase() !== sub.toLowerCase() || m.resourceGroup.toLowerCase() !== decodeURIComponent(rg).toLowerCase()) {
      return sendJson(res, 404, { error: { code: 'ResourceNotFound', message: `The Resource 'Microsoft.Compute/${type}/${name}' under resource group '${rg}' was not found.` } });
    }
    sendJson(res, 200, {
      id: resourceId(m),
      name: m.name,
      type: `Microsoft.Compute/${wanted}`,
      location: m.location,
      identity: { type: 'SystemAssigned', principalId: m.principalId, tenantId: this.tenantId },
      properties: { provisioningState: 'Succeeded' },
    });
  }

  private async jsonBody({ req, res }: Call): Promise<Record<string, unknown> | undefined> {
    let value: unknown;
    try {
      const text = await readSmallBody(req, 64 * 1024);
      value = text ? JSON.parse(text) : {};
    } catch (err) {
      sendText(res, 400, `simulator: ${(err as Error).message}`);
      return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      sendText(res, 400, 'simulator: the body must be a JSON object');
      return undefined;
    }
    return value as Record<string, unknown>;
  }

  /** Adds a machine (values not given are made up) and says what it is. */
  addMachine(spec: Partial<Omit<MachineRecord, 'tenant_id'>> = {}): MachineRecord {
    const s = (v: unknown, d: string) => (typeof v === 'string' && v !== '' ? v : d);
    const m: Machine = {
      kind: spec.kind === 'vmss' ? 'vmss' : 'vm',
      name: s(spec.name, `machine-${randomUUID().slice(0, 8)}`),
      subscriptionId: s(spec.subscription_id, randomUUID()),
      resourceGroup: s(spec.resource_group, `rg-${randomUUID().slice(0, 6)}`),
      location: s(spec.location, 'westeurope'),
      principalId: s(spec.principal_id, randomUUID()),
      groups: Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === 'string') : [],
    };
    this.machines.set(m.name.toLowerCase(), m);
    return { kind: m.kind, name: m.name, subscription_id: m.subscriptionId, resource_group: m.resourceGroup, location: m.location, principal_id: m.principalId, groups: m.groups, tenant_id: this.tenantId };
  }

  private async addMachineRoute(ctx: Call): Promise<void> {
    const b = await this.jsonBody(ctx);
    if (!b) return;
    sendJson(ctx.res, 200, this.addMachine(b as Partial<MachineRecord>));
  }

  /** A managed-identity token for a known machine, good or deliberately bad; undefined for an unknown machine. */
  async mint(machine: string, audience: string, variant: TokenVariant = 'good'): Promise<string | undefined> {
    const m = this.machine(machine);
    if (!m) return undefined;
    const now = Math.floor(Date.now() / 1000);
    const tenant = variant === 'wrong-tenant' ? randomUUID() : this.tenantId;
    const claims: Record<string, unknown> = {
      aud: variant === 'wrong-audience' ? `${audience}-other` : audience,
      iss: variant === 'wrong-issuer' ? `https://login.invalid/${tenant}/` : this.issuer(tenant),
      tid: tenant,
      oid: m.principalId,
      sub: m.principalId,
      groups: m.groups,
      xms_mirid: claimResourceId(m),
      xms_az_rid: claimResourceId(m),
      iat: now - 60,
      nbf: variant === 'not-yet-valid' ? now + 3600 : now - 60,
      exp: variant === 'expired' ? now - 30 : now + 3600,
    };
    if (variant === 'alg-none') {
      return `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    }
    const { key, rogue } = await this.keys();
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' }).sign(variant === 'wrong-signature' ? rogue : key.privateKey);
  }

  private async mintRoute(ctx: Call): Promise<void> {
    const b = await this.jsonBody(ctx);
    if (!b) return;
    const variant = String(b.variant ?? 'good');
    if (!(TOKEN_VARIANTS as readonly string[]).includes(variant)) return sendText(ctx.res, 400, `simulator: variant must be one of ${TOKEN_VARIANTS.join(', ')}`);
    if (typeof b.audience !== 'string') return sendText(ctx.res, 400, 'simulator: audience (the resource the auth method is configured with) is required');
    const jwt = typeof b.machine === 'string' ? await this.mint(b.machine, b.audience, variant as TokenVariant) : undefined;
    if (!jwt) return sendText(ctx.res, 404, 'simulator: unknown machine');
    sendJson(ctx.res, 200, { jwt });
  }
}
