import { HttpClient } from '../client/http-client.ts';
import { IdentityFixtures } from '../client/identity-fixtures.ts';
import { Redactor } from '../client/redact.ts';
import type { SecretsTarget } from '../config/schema.ts';
import { secretsApiFor } from './secrets-admin-client.ts';
import { sweepSecrets, type SweepScope } from './secrets-sweep.ts';
import type { Provision } from './sweep-report.ts';
import { createUpstreamEntity } from './upstream-entities.ts';
import { VaultAdminApi } from './vault-admin-api.ts';

/** What a load run needs of the secrets target: identity entities with tokens of their own, for the OIDC code flow. */
export interface ProvisionedIdentity {
  /** Who makes the entities: the product's admin API, the reference's control listener, the profile's list, or nobody. */
  provisioner: 'upstream' | 'control' | 'declared' | 'none';
  /** Hands out entities (made under the run prefix where they are made at all); absent with `missing`. */
  entities?: IdentityFixtures;
  /** Why there are none: the SKIP reason of the scenarios that need them. */
  missing?: string;
}

/** The root namespace only: the load scenarios make nothing elsewhere. */
const ROOT_ONLY: SweepScope = { namespaces: [''], kvV1Mounts: [], kvV2Mounts: [], cloudAuthMounts: [] };

/**
 * Identity entities for the load scenarios, had the way the conformance provisioner has them
 * (src/provision/secrets-provisioner.ts) but without the rest of its fixtures: on a hashicorp-dialect
 * target whose token may use Vault's admin API, a userpass auth method under the run prefix through
 * which each entity gets its token (src/provision/upstream-entities.ts); else the control listener
 * or the entities the profile lists. The teardown sweeps the root namespace by the run prefix: the
 * OIDC providers, clients and assignments the scenarios made, the entities, and the auth method
 * (disabling it revokes the entities' tokens), as `stackproof cleanup --prefix` would.
 */
export async function provisionSecretsIdentity(target: SecretsTarget, prefix: string): Promise<Provision<SecretsTarget, ProvisionedIdentity>> {
  const choice = target.provisioner ?? 'auto';
  const api = secretsApiFor(target);
  const admin = new VaultAdminApi(api);
  let adminProblem: string | undefined;
  // Set once the auth method exists: from then on the teardown needs the admin API to remove it.
  let mounted = false;
  if (choice === 'upstream' && target.dialect !== 'hashicorp') adminProblem = 'the admin API exists only in the hashicorp dialect';
  else if (choice === 'upstream' || (choice === 'auto' && target.dialect === 'hashicorp')) {
    const mount = `${prefix}-up`;
    try {
      await admin.enableAuth(mount, 'userpass');
      mounted = true;
      const userpass = { namespace: '', mount, accessor: await admin.accessorOf(mount) };
      const entities = new IdentityFixtures({ entities: [] }, undefined, (spec) => createUpstreamEntity(admin, userpass, spec));
      return {
        provisioned: { provisioner: 'upstream', entities },
        target,
        lines: [`secrets fixtures: entities through Vault's admin API (a userpass auth method at auth/${mount}/), under the run prefix`],
        teardown: () => sweepSecrets(api, admin, ROOT_ONLY, prefix),
      };
    } catch (err) {
      adminProblem = `the admin API did not make a userpass auth method for entity logins (${(err as Error).message})`;
    }
  }
  const sweep = () => sweepSecrets(api, mounted ? admin : undefined, ROOT_ONLY, prefix);
  const f = target.fixtures;
  if (choice !== 'none' && choice !== 'upstream' && f?.controlUrl) {
    const control = new HttpClient({ baseUrl: f.controlUrl, defaultHeaders: f.controlToken ? { authorization: `Bearer ${f.controlToken}` } : {}, timeoutMs: 10_000, redactor: new Redactor() });
    return { provisioned: { provisioner: 'control', entities: new IdentityFixtures(f, control) }, target, lines: [`secrets fixtures: entities through the control listener ${f.controlUrl}`], teardown: sweep };
  }
  if (target.capabilities.identityFixtures && f?.entities.length) {
    return { provisioned: { provisioner: 'declared', entities: new IdentityFixtures(f, undefined) }, target, lines: [`secrets fixtures: the ${f.entities.length} entities the profile lists`], teardown: sweep };
  }
  const why = adminProblem ?? (target.dialect === 'spec' ? 'the spec shows no way to make them' : `the profile chose provisioner "${choice}"`);
  const missing = `no identity entities: ${why}, and the profile names no fixtures (fixtures.controlUrl or fixtures.entities)`;
  return { provisioned: { provisioner: 'none', missing }, target, lines: [`secrets fixtures: none (${missing})`], teardown: sweep };
}
