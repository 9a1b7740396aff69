import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { z } from 'zod';
import type { HttpResponse } from '../client/http-client.ts';
import { CloudProxy } from '../cloud/cloud-proxy.ts';
import { CloudSimulator, SIMULATED_HOSTS } from '../cloud/simulator.ts';
import { hostCertificate } from '../cloud/tls-certificates.ts';
import type { SecretsTarget } from '../config/schema.ts';
import { routeAuthority, type RouteAuthority } from './cloud-route-authority.ts';
import { pluginEntrySchema, type VaultAdminApi } from './vault-admin-api.ts';

/**
 * The cloud-identity route on a real Vault or OpenBao: their Azure auth plugin verifies machine
 * tokens against Microsoft's endpoints, and a catalog entry may carry environment variables for
 * its plugin process. So the run registers a copy of the catalog's Azure plugin under its prefix
 * (the same command and sha256) with HTTPS_PROXY naming the cloud simulator's proxy and
 * SSL_CERT_FILE naming the certificate of the authority the proxy's certificate comes from, and
 * enables it as an auth method under its prefix. The plugin's requests for login.microsoftonline.com
 * and management.azure.com (Go's http.ProxyFromEnvironment, in go-cleanhttp and azcore) then reach
 * the simulator, which mints the tokens the login rules need. Both are removed by the run's sweep
 * (also after a failure, and by `stackproof cleanup --prefix`).
 *
 * Whether it works is learned by trying: one login of a simulated machine. Where it does not, the
 * reason says which part failed: no catalog rights, no external plugin to copy, the server never
 * reached the proxy, or the plugin did not trust the certificate.
 */

export interface CloudRoute {
  /** The profile's cloud-identity trust, for the suites: the simulator and the routed auth method. */
  cloudIdentity: NonNullable<SecretsTarget['cloudIdentity']>;
  /** Stops the simulator and removes the local certificate file; the sweep removes the rest. */
  close(): Promise<void>;
}

/** Whether the route works; either way, what was made for it (the sweep removes it). */
export type CloudRouteResult = ({ kind: 'routed'; route: CloudRoute } | { kind: 'not-routed'; why: string }) & { made: string[] };

/** How long the first request from the plugin may take to reach the proxy. */
export const REACH_BOUND_MS = 30_000;

const ENV_PRECEDENCE =
  "an HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE or SSL_CERT_DIR in the server's own environment overrides the catalog entry's on OpenBao and on Vault before 1.16 (and on later Vaults with VAULT_PLUGIN_USE_LEGACY_ENV_LAYERING)";

const loginAuthSchema = z.object({ auth: z.object({ client_token: z.string().min(1) }).passthrough() });

function errorsOf(res: HttpResponse): string {
  try {
    const errors = (res.json() as { errors?: unknown }).errors;
    if (Array.isArray(errors)) return errors.map(String).join('; ').slice(0, 300);
  } catch {
    // Not JSON: the text says it.
  }
  return res.text.trim().slice(0, 300);
}

export async function routeCloudPlugin(admin: VaultAdminApi, target: SecretsTarget, prefix: string): Promise<CloudRouteResult> {
  const settings = target.cloudRoute ?? { enabled: true, listenHost: '127.0.0.1', listenPort: 0 };
  const made: string[] = [];
  const notRouted = (why: string): CloudRouteResult => ({ kind: 'not-routed', why, made });
  if (!settings.enabled) return notRouted('the profile turns the route to the simulator off (cloudRoute.enabled false)');
  const api = admin.secrets;
  const type = api.dialect.secrets.cloudAuthMount;
  const source = settings.plugin ?? type;
  const name = `${prefix}-${type}`;

  const read = await admin.pluginEntry('auth', source);
  if (read.status === 403) return notRouted(`the token may not read the plugin catalog (sys/plugins/catalog/auth/${source} answered 403): the route needs read there and sudo to write and delete sys/plugins/catalog/auth/<run prefix>-*`);
  if (read.status === 404) return notRouted(`the plugin catalog has no auth plugin named ${source} to copy (register the external Azure auth plugin, or name it in cloudRoute.plugin)`);
  if (read.status !== 200) return notRouted(`reading sys/plugins/catalog/auth/${source} answered ${read.status}: ${errorsOf(read)}`);
  const parsed = pluginEntrySchema.safeParse(safeJson(read));
  if (!parsed.success) return notRouted(`sys/plugins/catalog/auth/${source} answered a body without data: ${read.text.slice(0, 160)}`);
  const entry = parsed.data.data;
  if (entry.builtin || !entry.command || !entry.sha256) {
    return notRouted(`the catalog's ${source} is built into the server and runs in its process, which a catalog entry's env does not reach: register the external plugin binary (vault-plugin-auth-azure or openbao-plugin-auth-azure) and name it in cloudRoute.plugin`);
  }

  let authority: RouteAuthority | undefined;
  let proxy: CloudProxy | undefined;
  const close = async () => {
    await proxy?.close();
    authority?.dispose();
  };
  try {
    authority = await routeAuthority(settings);
    const controlToken = randomUUID();
    const simulator = await CloudSimulator.create(controlToken);
    proxy = await CloudProxy.start(simulator, await hostCertificate(authority.authority, SIMULATED_HOSTS), { host: settings.listenHost, port: settings.listenPort });
    const port = new URL(proxy.url).port;
    const proxyUrl = settings.proxyUrl ?? proxy.url;
    // The harness's own calls to the simulator (its control routes) stay on this machine.
    const controlUrl = ['0.0.0.0', '::'].includes(settings.listenHost) ? `http://127.0.0.1:${port}` : proxy.url;
    simulator.baseUrl = controlUrl;

    const registered = await admin.registerPlugin('auth', name, { sha256: entry.sha256, command: entry.command, args: entry.args ?? [], env: [`HTTPS_PROXY=${proxyUrl}`, `SSL_CERT_FILE=${authority.serverCaFile}`] });
    if (registered.status === 403) {
      await close();
      return notRouted(`the token may not write the plugin catalog (sys/plugins/catalog/auth/${name} answered 403): the route registers a copy of ${source} there, which needs sudo on sys/plugins/catalog/auth/<run prefix>-*`);
    }
    if (registered.status >= 300) {
      await close();
      return notRouted(`registering sys/plugins/catalog/auth/${name} answered ${registered.status}: ${errorsOf(registered)}`);
    }
    made.push(`plugin catalog entry auth/${name} (${source}'s command, with HTTPS_PROXY=${proxyUrl} and SSL_CERT_FILE=${authority.serverCaFile})`);
    try {
      await admin.enableAuth(name, name);
    } catch (err) {
      await close();
      return notRouted(`enabling the copy of ${source} at auth/${name}/: ${(err as Error).message}`);
    }
    made.push(`an auth method of type ${name} at auth/${name}/ (the cloud-identity rules, logins included)`);

    const problem = await probe(admin, name, simulator, proxy, { proxyUrl, serverCaFile: authority.serverCaFile, localCa: authority.local });
    if (problem) {
      await close();
      return notRouted(problem);
    }
    const clientAddresses = settings.clientAddresses ?? (await loopbackPair(target.url));
    return {
      kind: 'routed',
      made,
      route: {
        cloudIdentity: { simulatorUrl: controlUrl, simulatorToken: controlToken, tenantId: simulator.tenantId, mount: name, ...(clientAddresses ? { clientAddresses } : {}) },
        close,
      },
    };
  } catch (err) {
    await close();
    return notRouted(`the route to the simulator broke off: ${(err as Error).message}`);
  }
}

/**
 * One login of a simulated machine through the routed plugin: the plugin fetches the tenant's
 * discovery document and keys through the proxy. The probe's config and role are removed after
 * (the rules write their own). Undefined when the login worked, else why it did not.
 */
async function probe(admin: VaultAdminApi, mount: string, simulator: CloudSimulator, proxy: CloudProxy, where: { proxyUrl: string; serverCaFile: string; localCa: boolean }): Promise<string | undefined> {
  const api = admin.secrets;
  const resource = `https://management.stackproof.test/${mount}-probe`;
  const machine = simulator.addMachine({ name: `${mount}-probe` });
  const jwt = (await simulator.mint(machine.name, resource))!;
  const config = await api.write(`auth/${mount}/config`, { tenant_id: simulator.tenantId, resource, client_id: 'stackproof-route-probe', client_secret: randomBytes(16).toString('hex') });
  if (config.status >= 300) return `writing auth/${mount}/config for the probe login answered ${config.status}: ${errorsOf(config)}`;
  const role = await api.write(`auth/${mount}/role/probe`, { bound_service_principal_ids: [machine.principal_id] });
  if (role.status >= 300) return `writing auth/${mount}/role/probe for the probe login answered ${role.status}: ${errorsOf(role)}`;
  const login = api.http
    .request({ method: 'POST', path: `/v1/auth/${mount}/login`, json: { role: 'probe', jwt, subscription_id: machine.subscription_id, resource_group_name: machine.resource_group, vm_name: machine.name }, bare: true, timeoutMs: REACH_BOUND_MS * 3 })
    .then((res) => ({ res }), (err: Error) => ({ err }));
  const first = await Promise.race([login, proxy.anyArrival(REACH_BOUND_MS).then((arrived) => ({ arrived }))]);
  if ('arrived' in first && !first.arrived) {
    return `the server's plugin did not reach the simulator: no request arrived at ${where.proxyUrl} within ${REACH_BOUND_MS / 1000} s of a login (for a server on another host, name an address it reaches in cloudRoute.proxyUrl; ${ENV_PRECEDENCE})`;
  }
  const outcome = await login;
  await api.delete(`auth/${mount}/role/probe`);
  await api.delete(`auth/${mount}/config`);
  const answer = 'res' in outcome ? `${outcome.res.status}: ${errorsOf(outcome.res)}` : outcome.err.message;
  if ('res' in outcome && outcome.res.status === 200 && loginAuthSchema.safeParse(safeJson(outcome.res)).success) return undefined;
  const taken = proxy.arrivals().filter((a) => a.taken);
  if (taken.length === 0) {
    const asked = proxy.arrivals().map((a) => a.target);
    return asked.length
      ? `the server's plugin asked the simulator's proxy for ${asked.join(', ')} only (the probe login answered ${answer})`
      : `the server's plugin did not reach the simulator at ${where.proxyUrl} (the probe login answered ${answer}; for a server on another host, name an address it reaches in cloudRoute.proxyUrl; ${ENV_PRECEDENCE})`;
  }
  if (proxy.tlsFailures().length > 0) {
    const file = where.localCa ? `${where.serverCaFile}, a file on this machine (a server elsewhere needs a copy: cloudRoute.caDir and serverCaFile)` : where.serverCaFile;
    return `the server's plugin reached the simulator but did not trust its certificate (${proxy.tlsFailures()[0]}; the probe login answered ${answer}): it must read the authority's certificate at ${file}; ${ENV_PRECEDENCE}`;
  }
  return `the probe login through the plugin routed to the simulator was refused: ${answer}`;
}

/**
 * Two source addresses for the token_bound_cidrs rules, for a target on 127.0.0.1: requests come
 * from 127.0.0.1, and 127.0.0.2 is another. Only when the target takes a connection from
 * 127.0.0.2 (Linux routes all of 127/8 to the loopback; other systems may not).
 */
async function loopbackPair(url: string): Promise<[string, string] | undefined> {
  const u = new URL(url);
  if (u.hostname !== '127.0.0.1') return undefined;
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const ok = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2', timeout: 5_000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
  return ok ? ['127.0.0.1', '127.0.0.2'] : undefined;
}

function safeJson(res: HttpResponse): unknown {
  try {
    return res.json();
  } catch {
    return undefined;
  }
}
