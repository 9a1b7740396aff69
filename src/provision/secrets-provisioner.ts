import type { SecretsApi } from '../client/secrets-api.ts';
import type { SecretsTarget } from '../config/schema.ts';
import type { UserpassMount } from './upstream-entities.ts';
import { sweepSecrets, type SweepScope } from './secrets-sweep.ts';
import type { Provision } from './sweep-report.ts';
import { secretsApiFor } from './secrets-admin-client.ts';
import { VaultAdminApi } from './vault-admin-api.ts';
import { routeCloudPlugin, type CloudRoute } from './cloud-plugin-route.ts';

/** What the suites learn about the fixtures beyond the target profile (plain data: it crosses into vitest's workers). */
export interface ProvisionedSecrets {
  /** Who makes the fixtures: the product's admin API, the reference's control listener, or nobody. */
  provisioner: 'upstream' | 'control' | 'none';
  /** Userpass mounts the upstream provisioner logs entities in through (root namespace: ''). */
  userpass?: UserpassMount[];
  /** A cloud-identity auth method enabled for this run (config and role rules run on it; logins need the simulator). */
  cloudAuthMount?: string;
  /** Why a capability is missing, by capability name: the SKIP reason of the rules that need it. */
  missing: Record<string, string>;
}

export type SecretsProvision = Provision<SecretsTarget, ProvisionedSecrets>;

const SIMULATOR_MISSING =
  "the cloud-identity login rules need machine tokens from a simulator the auth method trusts: a real Vault's or OpenBao's Azure plugin verifies them against Microsoft's endpoints, and reaches the simulator only through a copy of it the run registers in the plugin catalog (hashicorp dialect, with catalog rights: docs/cloud-identity-real-products.md); or run against `stackproof serve`, or declare cloudIdentity in the profile";

/** Why the login rules SKIP when the route to the simulator was tried and did not work. */
function notRouted(why: string): string {
  return `the cloud-identity login rules need machine tokens from a simulator the auth method trusts, and the run could not route the server's Azure plugin to one: ${why}`;
}

const PROXY_MISSING =
  'no request-header proxy: a proxy in front of the service that refuses requests without the request header is a deployment choice, not part of the product; name one in requestHeaderProxyUrl (`stackproof serve` starts one)';

/**
 * Makes, before the suites run, what the secrets rules need and the profile does not name: on a
 * hashicorp-dialect target through Vault's own admin API (with the profile's token), else through
 * the reference's control listener when the profile names one. Capabilities are detected by
 * trying: a mount that cannot be made, or a sys/namespaces that answers 404, leaves its rules SKIP
 * with the reason. Everything made is named under the run prefix.
 */
export async function provisionSecrets(target: SecretsTarget, prefix: string): Promise<SecretsProvision> {
  const choice = target.provisioner ?? 'auto';
  const api = secretsApiFor(target);
  const admin = new VaultAdminApi(api);
  const scope = (extra: Partial<SweepScope> = {}): SweepScope => ({ ...profileSweepScope(target, api), ...extra });
  const simulatorMissing: Record<string, string> = {
    ...(target.cloudIdentity ? {} : { cloudIdentity: SIMULATOR_MISSING }),
    ...(target.requestHeaderProxyUrl ? {} : { requestHeaderProxy: PROXY_MISSING }),
  };

  let adminProblem: string | undefined;
  if (choice === 'upstream' && target.dialect !== 'hashicorp') {
    adminProblem = 'the admin API exists only in the hashicorp dialect';
  } else if (choice === 'upstream' || (choice === 'auto' && target.dialect === 'hashicorp')) {
    try {
      await admin.mounts('mounts');
    } catch (err) {
      adminProblem = `the admin API is not usable with this token (${(err as Error).message})`;
    }
    if (!adminProblem) {
      try {
        return await provisionUpstream(target, admin, prefix, scope, simulatorMissing);
      } catch (err) {
        // The target broke down half-way (a reset, a timeout): what was made is still swept by
        // prefix, and the rules that needed it SKIP with the reason.
        adminProblem = `provisioning through Vault's admin API broke off (${(err as Error).message})`;
        const sweep = () => sweepSecrets(api, admin, scope(), prefix);
        const missing = { ...simulatorMissing, identityFixtures: adminProblem, kvV2: adminProblem, namespaces: adminProblem, oidcAltKey: adminProblem, cloudIdentityMount: adminProblem };
        return { provisioned: { provisioner: 'none', missing }, target, lines: [`secrets fixtures: none made (${adminProblem})`], teardown: sweep };
      }
    }
  }

  const control = choice !== 'none' && choice !== 'upstream' && Boolean(target.fixtures?.controlUrl);
  const missing: Record<string, string> = { ...simulatorMissing };
  const why = adminProblem ?? (target.dialect === 'spec' ? 'the spec shows no way to make them' : `the profile chose provisioner "${choice}"`);
  if (!target.capabilities.identityFixtures) missing.identityFixtures = `no identity entities: ${why}, and the profile names no fixtures (fixtures.controlUrl or fixtures.entities)`;
  if (!target.capabilities.kvV2) missing.kvV2 = `no version 2 key-value mount: ${why}, and the profile declares none (capabilities.kvV2, kv.v2Mount)`;
  if (!target.capabilities.namespaces) missing.namespaces = `no namespaces: ${why}, and the profile declares none (capabilities.namespaces, namespaces)`;
  if (!target.oidcAltKey) missing.oidcAltKey = `no second OIDC signing key: ${why}, and the profile names none (oidcAltKey)`;
  if (!target.cloudIdentity) missing.cloudIdentityMount = `no cloud-identity auth method: ${why}, and the profile declares none (cloudIdentity)`;
  const kind = control ? 'control' : 'none';
  return {
    provisioned: { provisioner: kind, missing },
    target,
    lines: [`secrets fixtures: ${control ? `through the control listener ${target.fixtures!.controlUrl}` : `none made (${why})`}`],
    teardown: () => sweepSecrets(api, undefined, scope(), prefix),
  };
}

/** Where the profile's own namespaces and mounts are, which a run writes into under its prefix. */
export function profileSweepScope(target: SecretsTarget, api: SecretsApi): SweepScope {
  return {
    namespaces: ['', ...(target.capabilities.namespaces ? target.namespaces : [])],
    kvV1Mounts: [target.kv.v1Mount],
    // secret/ too: the rule that a key-value engine is mounted there writes one key (version 1 or 2).
    kvV2Mounts: [...new Set(['secret/', ...(target.capabilities.kvV2 && target.kv.v2Mount ? [target.kv.v2Mount] : [])])],
    cloudAuthMounts: target.cloudIdentity ? [target.cloudIdentity.mount ?? api.dialect.secrets.cloudAuthMount] : [],
  };
}

async function provisionUpstream(
  target: SecretsTarget,
  admin: VaultAdminApi,
  prefix: string,
  scope: (extra?: Partial<SweepScope>) => SweepScope,
  simulatorMissing: Record<string, string>,
): Promise<SecretsProvision> {
  const missing: Record<string, string> = { ...simulatorMissing };
  const made: string[] = [];
  const resolved: SecretsTarget = structuredClone(target);
  const api = admin.secrets;
  const attempt = async (capability: string, what: string, step: () => Promise<void>): Promise<boolean> => {
    try {
      await step();
      made.push(what);
      return true;
    } catch (err) {
      missing[capability] = `could not make ${what} through Vault's admin API: ${(err as Error).message}`;
      return false;
    }
  };

  // A fresh mount of each version, so that no key of anyone else's is ever written or listed. Not
  // where the profile declares namespaces: it says each has a version 1 engine at kv.v1Mount.
  const v1 = `${prefix}-kv1`;
  if (!target.capabilities.namespaces && (await attempt('kvV1', `a version 1 key-value mount at ${v1}/`, () => admin.enableSecrets(v1, 'kv', { version: '1' })))) resolved.kv.v1Mount = `${v1}/`;
  if (!target.capabilities.kvV2) {
    const v2 = `${prefix}-kv2`;
    if (await attempt('kvV2', `a version 2 key-value mount at ${v2}/`, async () => {
      await admin.enableSecrets(v2, 'kv', { version: '2' });
      await untilKvV2Ready(api, `${v2}/`);
    })) {
      resolved.kv.v2Mount = `${v2}/`;
      resolved.capabilities.kvV2 = true;
    }
  }

  if (!target.capabilities.namespaces) {
    const outer = `${prefix}-ns`;
    const res = await admin.createNamespace(outer);
    if (res.status === 200 || res.status === 204) {
      made.push(`namespace ${outer}/`);
      const ok = await attempt('namespaces', `namespace ${outer}/app/ and a version 1 key-value mount in each`, async () => {
        const inner = await admin.createNamespace('app', `${outer}/`);
        if (inner.status >= 300) throw new Error(`nested namespace ${outer}/app/: answered ${inner.status}`);
        for (const ns of [`${outer}/`, `${outer}/app/`]) await admin.enableSecrets(resolved.kv.v1Mount.replace(/\/$/, ''), 'kv', { version: '1' }, ns);
      });
      if (ok) {
        resolved.capabilities.namespaces = true;
        resolved.namespaces = [`${outer}/`, `${outer}/app/`];
      }
    } else {
      missing.namespaces =
        res.status === 404 || res.status === 405
          ? `no namespaces: sys/namespaces answered ${res.status} (Vault CE and OpenBao before 2.3 have none; Vault Enterprise and HCP do)`
          : `could not make namespace ${outer}/ through sys/namespaces: answered ${res.status} ${res.text.slice(0, 160)}`;
    }
  }

  const provisioned: ProvisionedSecrets = { provisioner: 'upstream', missing };
  if (!target.capabilities.identityFixtures) {
    const mount = `${prefix}-up`;
    let accessor = '';
    if (await attempt('identityFixtures', `a userpass auth method at auth/${mount}/ for entity logins`, async () => {
      await admin.enableAuth(mount, 'userpass');
      accessor = await admin.accessorOf(mount);
    })) {
      provisioned.userpass = [{ namespace: '', mount, accessor }];
      resolved.capabilities.identityFixtures = true;
    }
  }
  if (!target.oidcAltKey) {
    const key = `${prefix}-key`;
    if (await attempt('oidcAltKey', `a second OIDC signing key ${key}`, () => admin.createOidcKey(key))) resolved.oidcAltKey = key;
  }
  // Last, so that nothing after it can break off with the simulator's proxy left running.
  let route: CloudRoute | undefined;
  if (!target.cloudIdentity) {
    const routed = await routeCloudPlugin(admin, target, prefix);
    made.push(...routed.made);
    if (routed.kind === 'routed') {
      route = routed.route;
      resolved.capabilities.cloudIdentity = true;
      resolved.cloudIdentity = route.cloudIdentity;
      delete missing.cloudIdentity;
    } else {
      missing.cloudIdentity = notRouted(routed.why);
      // The config and role rules need no cloud: a plain mount of the catalog's plugin does for them.
      const type = api.dialect.secrets.cloudAuthMount;
      const mount = `${prefix}-${type}-plain`;
      if (await attempt('cloudIdentityMount', `an auth method of type ${type} at auth/${mount}/ (config and role rules)`, () => admin.enableAuth(mount, type))) provisioned.cloudAuthMount = mount;
    }
  }

  return {
    provisioned,
    target: resolved,
    lines: [
      `secrets fixtures: through Vault's admin API, under the run prefix ${prefix}`,
      ...made.map((m) => `  made ${m}`),
      ...Object.entries(missing).map(([c, why]) => `  not available: ${c}: ${why}`),
    ],
    // The run's own mounts go whole; the profile's own ones are swept key by key. The simulator
    // stops after the sweep has removed the auth method whose plugin reached it.
    teardown: async () => {
      const report = await sweepSecrets(api, admin, scope({ kvV1Mounts: target.kv.v1Mount === resolved.kv.v1Mount ? [target.kv.v1Mount] : [] }), prefix);
      await route?.close();
      return report;
    },
  };
}

/**
 * A new version 2 mount upgrades its storage in the background, and Vault refuses requests until
 * it is done ("Upgrading from non-versioned to versioned data"): wait for its config to read.
 */
async function untilKvV2Ready(api: SecretsApi, mount: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await api.read(`${mount}config`);
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`${mount}config still answers ${res.status} after 15 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
