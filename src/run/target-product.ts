import { Agent, request } from 'undici';
import { z } from 'zod';
import type { ProductName } from '../config/names.ts';

/**
 * Which product a hashicorp-dialect target is, and its version, so that a product's listed
 * deviations are applied only to that product and by its own release numbers. Vault and OpenBao
 * speak one API and OpenBao's releases (2.x) are not Vault's, so the secrets service is told apart
 * by what each names itself; Nomad says its version on its agent endpoint.
 */
export interface TargetProduct {
  /** The product whose expectation file speaks of it (undefined: a product of the family that did not say which). */
  key?: ProductName;
  name: string;
  version?: string;
  /** The evidence, for the run header and the report. */
  how: string;
}

/** The product line of the run header: `secrets product: OpenBao 2.6.2 (GET /v1/sys/internal/specs/openapi …)`. */
export function productHeaderLine(system: string, p: TargetProduct): string {
  return `${system} product: ${p.name}${p.version ? ` ${p.version}` : ' (version unknown)'} (${p.how})`;
}

/** The build metadata the embedded reference gives its version, served in the hashicorp dialect. */
const REFERENCE_METADATA = 'stackproof-reference';

/** The title each product gives its OpenAPI document (sdk/framework/openapi.go NewOASDocument in both). */
const OPENAPI_TITLES: Record<string, { key: ProductName; name: string }> = {
  // hashicorp/vault sdk/framework/openapi.go; OpenBao renamed it in c57511066f, before its 2.0.0.
  'HashiCorp Vault API': { key: 'vault', name: 'HashiCorp Vault' },
  'OpenBao API': { key: 'openbao', name: 'OpenBao' },
};

/**
 * The metadata each product gives its builtin plugins' versions: "v1.15.0+builtin.vault" (Vault
 * 1.12+, sdk/helper/pluginutil and helper/versions/version.go), "v2.6.2+builtin.bao" (OpenBao 2.0+,
 * helper/versions/version.go).
 */
const BUILTIN_SUFFIXES: Record<string, { key: ProductName; name: string }> = {
  'builtin.vault': { key: 'vault', name: 'HashiCorp Vault' },
  'builtin.bao': { key: 'openbao', name: 'OpenBao' },
};

const openapiSchema = z.looseObject({ info: z.looseObject({ title: z.string(), version: z.string().optional() }) });
const catalogEntrySchema = z.looseObject({ data: z.looseObject({ version: z.string() }) });
const nomadSelfSchema = z.looseObject({
  config: z.looseObject({ Version: z.looseObject({ Version: z.string(), VersionPrerelease: z.string().optional(), VersionMetadata: z.string().optional() }) }),
});

/** Reads the product's name off its OpenAPI title (answered without a token by both products). */
export function productFromOpenApiTitle(body: string): { key: ProductName; name: string; title: string } | undefined {
  try {
    const parsed = openapiSchema.safeParse(JSON.parse(body));
    if (!parsed.success) return undefined;
    const found = OPENAPI_TITLES[parsed.data.info.title];
    return found ? { ...found, title: parsed.data.info.title } : undefined;
  } catch {
    return undefined;
  }
}

interface Get {
  status: number;
  body: string;
}

type Fetcher = (path: string) => Promise<Get | undefined>;

function fetcher(base: string, headers: Record<string, string>, deadlineMs: number): { get: Fetcher; close: () => Promise<void> } {
  const dispatcher = new Agent({ connect: { timeout: deadlineMs } });
  const get: Fetcher = async (path) => {
    try {
      const res = await request(new URL(path.slice(1), base.endsWith('/') ? base : `${base}/`), { headers, dispatcher, signal: AbortSignal.timeout(deadlineMs) });
      // The answers read here are small; a product that sends a large one is cut, not buffered.
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        if (size > 256 * 1024) {
          res.body.destroy();
          break;
        }
      }
      return { status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') };
    } catch {
      return undefined;
    }
  };
  return { get, close: () => dispatcher.destroy().catch(() => undefined) };
}

/**
 * The secrets service: Vault or OpenBao. First the OpenAPI document's title, which both answer
 * without a token (sys/internal/specs/openapi is in both products' unauthenticated paths; older
 * Vaults ask for a token); then, with the token, the version metadata of a builtin plugin in the
 * catalog (a sudo path: a token without sudo learns nothing there). The version is sys/health's.
 */
export async function secretsProduct(get: Fetcher, authed: Fetcher, healthVersion: string | undefined): Promise<TargetProduct> {
  if (healthVersion?.endsWith(`+${REFERENCE_METADATA}`)) return { name: 'the stackproof reference (hashicorp dialect)', how: `GET /v1/sys/health: version ${healthVersion}; no product release, every listed deviation applies` };
  const version = healthVersion;
  const enterprise = version && /\+ent/.test(version) ? ' Enterprise' : '';
  const withVersion = (p: Omit<TargetProduct, 'version'>): TargetProduct => ({ ...p, ...(version ? { version } : {}) });
  const openapi = await get('/v1/sys/internal/specs/openapi');
  const byTitle = openapi?.status === 200 ? productFromOpenApiTitle(openapi.body) : undefined;
  if (byTitle) return withVersion({ key: byTitle.key, name: `${byTitle.name}${enterprise}`, how: `GET /v1/sys/internal/specs/openapi titled "${byTitle.title}"; version from GET /v1/sys/health` });
  const catalog = await authed('/v1/sys/plugins/catalog/auth/userpass');
  if (catalog?.status === 200) {
    try {
      const parsed = catalogEntrySchema.safeParse(JSON.parse(catalog.body));
      const meta = parsed.success ? parsed.data.data.version.split('+')[1] : undefined;
      const found = meta ? BUILTIN_SUFFIXES[meta] : undefined;
      if (found) return withVersion({ key: found.key, name: `${found.name}${enterprise}`, how: `GET /v1/sys/plugins/catalog/auth/userpass: builtin version ${parsed.data!.data.version}; version from GET /v1/sys/health` });
    } catch {
      // not JSON: told below
    }
  }
  const said = `GET /v1/sys/internal/specs/openapi answered ${openapi?.status ?? 'nothing'}${catalog ? `, GET /v1/sys/plugins/catalog/auth/userpass ${catalog.status}` : ''}`;
  return withVersion({ name: 'a Vault-API secrets service (HashiCorp Vault or OpenBao: not told)', how: `${said}: neither names the product; every product named with --expect applies, its ranges unchecked` });
}

/** The scheduler: Nomad says its version on /v1/agent/self (agent:read). */
export async function schedulerProduct(authed: Fetcher): Promise<TargetProduct> {
  const self = await authed('/v1/agent/self');
  if (self?.status === 200) {
    try {
      const parsed = nomadSelfSchema.safeParse(JSON.parse(self.body));
      if (parsed.success) {
        const v = parsed.data.config.Version;
        if (v.VersionMetadata === REFERENCE_METADATA) return { name: 'the stackproof reference (hashicorp dialect)', how: `GET /v1/agent/self: version ${v.Version}+${REFERENCE_METADATA}, the reference answering as that release; every listed deviation applies` };
        const version = `${v.Version}${v.VersionPrerelease ? `-${v.VersionPrerelease}` : ''}${v.VersionMetadata ? `+${v.VersionMetadata}` : ''}`;
        return { key: 'nomad', name: `HashiCorp Nomad${/ent/.test(v.VersionMetadata ?? '') ? ' Enterprise' : ''}`, version, how: 'GET /v1/agent/self, config.Version' };
      }
    } catch {
      // not JSON: told below
    }
    return { key: 'nomad', name: 'HashiCorp Nomad', how: 'GET /v1/agent/self answered without config.Version: version unknown, every listed deviation applies' };
  }
  return { key: 'nomad', name: 'HashiCorp Nomad', how: `GET /v1/agent/self answered ${self?.status ?? 'nothing'} (it needs agent:read): version unknown, every listed deviation applies` };
}

/** The product of one hashicorp-dialect secrets or scheduler target; the mesh's is the provisioner's (consul-capabilities.ts). */
export async function identifyProduct(system: 'secrets' | 'scheduler', url: string, tokenHeaders: Record<string, string>, healthVersion: string | undefined, deadlineMs: number): Promise<TargetProduct> {
  const anonymous = fetcher(url, { accept: 'application/json' }, deadlineMs);
  const withToken = fetcher(url, { accept: 'application/json', ...tokenHeaders }, deadlineMs);
  try {
    return system === 'secrets' ? await secretsProduct(anonymous.get, withToken.get, healthVersion) : await schedulerProduct(withToken.get);
  } finally {
    await Promise.all([anonymous.close(), withToken.close()]);
  }
}
