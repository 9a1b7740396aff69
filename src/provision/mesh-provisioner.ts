import { z } from 'zod';
import { tokenHeaders, dialectFor } from '../config/dialects.ts';
import type { MeshTarget } from '../config/schema.ts';
import { HttpClient } from '../client/http-client.ts';
import { Redactor } from '../client/redact.ts';
import { MeshControlApi } from '../client/mesh-api.ts';
import { ConsulAdminApi } from './consul-admin-api.ts';
import { ConsulMeshFixtures, type MeshFixtures } from './mesh-fixtures.ts';
import { consulCapabilities, productLine, sweepLegacyIntentions } from './consul-capabilities.ts';
import { caRecordLines, closeCaChanges, ConsulKv, countRotationsByRoots, putBackCaConfiguration, rotationsLine } from './ca-configuration-record.ts';
import { madeByRun } from './run-prefix.ts';
import { Sweeper, type Provision, type SweepReport } from './sweep-report.ts';

/** What the mesh suites learn about their fixtures beyond the target profile (plain data). */
export interface ProvisionedMesh {
  provisioner: 'upstream' | 'control' | 'none';
  /** Why a capability is missing, by name (`aclEnforced`, `caRotation`, `namespaces`, `meshFixtures`, `l7Permissions`). */
  missing: Record<string, string>;
  /** The product found on the target and its version (hashicorp dialect: GET /v1/agent/self). */
  product?: { name: string; version?: string; how: string };
  /** How the agent's version takes intentions: `exact` (Consul 1.9+) or `legacy` (POST /v1/connect/intentions). */
  intentionApi?: 'exact' | 'legacy';
}

export type MeshProvision = Provision<MeshTarget, ProvisionedMesh>;

/** The mesh target's HTTP client with its management token, outside the suites (no evidence kept). */
export function meshHttpFor(target: MeshTarget, timeoutMs = 10_000): HttpClient {
  const redactor = new Redactor();
  redactor.add(target.token);
  return new HttpClient({ baseUrl: target.url, defaultHeaders: tokenHeaders(dialectFor(target.dialect).mesh.token, target.token), timeoutMs, redactor });
}

/**
 * The mesh fixtures through whichever API the provisioner chose, outside the suites (the load
 * scenarios); undefined when none can be made (then `missing.meshFixtures` says why).
 */
export function meshFixturesFor(p: MeshProvision, runPrefix: string): MeshFixtures | undefined {
  const { provisioner, intentionApi } = p.provisioned;
  if (provisioner === 'upstream') return new ConsulMeshFixtures(meshHttpFor(p.target), runPrefix, intentionApi);
  if (provisioner === 'control' && p.target.fixtures) {
    const { controlUrl, controlToken } = p.target.fixtures;
    const redactor = new Redactor();
    redactor.add(controlToken);
    return new MeshControlApi(new HttpClient({ baseUrl: controlUrl, defaultHeaders: { authorization: `Bearer ${controlToken}` }, timeoutMs: 10_000, redactor }));
  }
  return undefined;
}

/**
 * Decides who makes the mesh fixtures and finds out what the agent can do: in the hashicorp dialect
 * Consul's own API (intentions, config entries, ACL policies and tokens, the CA configuration); else
 * the reference's control listener when the profile names one. Whether ACLs are enforced (and the
 * agent's default token grants no service:write, which the ACL rules' requests without a token rely
 * on) and whether there are Enterprise namespaces are detected, not declared.
 */
export async function provisionMesh(target: MeshTarget, prefix: string): Promise<MeshProvision> {
  const api = new ConsulAdminApi(meshHttpFor(target));
  try {
    const provision = await detectMesh(target, prefix, api);
    if (provision.provisioned.provisioner === 'upstream') provision.lines.push(...(await caRecordLines(new ConsulKv(api.http), prefix)));
    if (provision.provisioned.provisioner === 'control') {
      // The control listener rotates the CA: the run's end counts the new roots.
      const count = await countRotationsByRoots(api.http, prefix);
      const teardown = provision.teardown;
      provision.teardown = async () => {
        const report = await teardown();
        await count(report);
        return report;
      };
    }
    return provision;
  } catch (err) {
    // The agent broke down during detection: nothing is made, the rules that need fixtures SKIP.
    const why = `finding out what the agent can do broke off (${(err as Error).message})`;
    return { provisioned: { provisioner: 'none', missing: { meshFixtures: why } }, target, lines: [`mesh fixtures: none made (${why})`], teardown: () => sweepMesh(api, prefix), putBack: (o) => putBackMeshNow(api, prefix, o) };
  }
}

async function detectMesh(target: MeshTarget, prefix: string, api: ConsulAdminApi): Promise<MeshProvision> {
  const choice = target.provisioner ?? 'auto';
  const http = api.http;
  const missing: Record<string, string> = {};
  const lines: string[] = [];
  const resolved: MeshTarget = structuredClone(target);
  if (target.rotateCa === false) missing.caRotation = 'the profile forbids CA rotation (rotateCa: false)';

  const upstream = choice === 'upstream' || (choice === 'auto' && target.dialect === 'hashicorp');
  if (upstream && target.dialect === 'hashicorp') {
    // The version decides how fixtures are made and which expectations apply (consul-capabilities.ts).
    const caps = await consulCapabilities(api);
    lines.push(productLine('mesh', caps));
    Object.assign(missing, caps.missing);
    const self = await http.request({ method: 'GET', path: '/v1/acl/token/self' });
    if (self.status === 200) {
      // A request without a token gets the agent's default token: it must not grant service:write,
      // or the ACL rules' refusals cannot happen.
      const anonymous = await http.request({ method: 'GET', path: `/v1/agent/connect/ca/leaf/${prefix}-acl-probe`, bare: true });
      if (anonymous.status === 200) {
        missing.aclEnforced = "the agent's default token grants service:write (a leaf was issued to a request without a token), so the ACL rules cannot see a refusal: give the agent a default token without service:write (acl.tokens.default), or none";
      }
    } else if (/ACL support disabled/i.test(self.text)) {
      missing.aclEnforced = 'ACLs are disabled on the agent (`consul agent -dev` starts without them): no token is ever refused, and no limited token can be made; enable them in its config (acl { enabled = true, default_policy = "deny" })';
    } else {
      missing.meshFixtures = `the token cannot read itself (GET /v1/acl/token/self answered ${self.status} ${self.text.trim().slice(0, 120)}): is it the agent's management token?`;
    }
    if (!target.capabilities.namespaces) {
      const ns = await api.namespaces();
      if (ns.status === 200) resolved.capabilities.namespaces = true;
      else missing.namespaces = `no namespaces: GET /v1/namespaces answered ${ns.status} (Consul CE has none; Enterprise does)`;
    }
    if (!missing.meshFixtures) {
      resolved.capabilities.meshFixtures = true;
      lines.push(
        `mesh fixtures: through Consul's API, under the run prefix ${prefix} (intentions, config entries, ACL policies and tokens${missing.caRotation ? '' : ', CA rotation'})`,
        ...(resolved.capabilities.namespaces && !target.capabilities.namespaces ? ['  detected Enterprise namespaces'] : []),
        ...Object.entries(missing).map(([c, why]) => `  not available: ${c}: ${why}`),
      );
      return { provisioned: { provisioner: 'upstream', missing, product: caps.product, intentionApi: caps.intentionApi }, target: resolved, lines, teardown: () => sweepMesh(api, prefix, { endOfRun: true }), putBack: (o) => putBackMeshNow(api, prefix, o) };
    }
  }

  const control = choice !== 'none' && choice !== 'upstream' && Boolean(target.fixtures);
  const why = target.dialect === 'spec' ? 'the spec shows no way to make intentions or tokens or to rotate a CA' : `the profile chose provisioner "${choice}"`;
  if (control) delete missing.meshFixtures;
  else if (!missing.meshFixtures) missing.meshFixtures = `no intentions, ACL tokens or CA rotation: ${why}, and the profile names no fixtures (fixtures.controlUrl)`;
  if (!target.capabilities.namespaces && !missing.namespaces) missing.namespaces = 'the target declares no namespaces (capabilities.namespaces)';
  lines.push(`mesh fixtures: ${control ? `through the control listener ${target.fixtures!.controlUrl}` : 'none made'}`);
  return { provisioned: { provisioner: control ? 'control' : 'none', missing }, target: resolved, lines, teardown: async () => ({ removed: [], problems: [] }) };
}

/**
 * Ctrl-C or SIGTERM: the CA configuration the run changed is put back at once, without waiting for
 * the suites to stop (a CI runner may follow SIGTERM with SIGKILL soon). No thread of the run
 * changes the CA from then on; the configuration is put back, and once more after half a second in
 * case a change was already on its way to the agent. The record stays for the teardown, which
 * counts the rotations from it — unless the run is `leaving` (a second Ctrl-C: no teardown
 * follows, what the run made stays for `stackproof cleanup`): then the record goes too, and the
 * rotations are said here.
 */
async function putBackMeshNow(api: ConsulAdminApi, prefix: string, options: { leaving: boolean }): Promise<SweepReport> {
  closeCaChanges(prefix);
  const kv = new ConsulKv(api.http);
  const sweeper = new Sweeper();
  await putBackCaConfiguration(api, kv, sweeper, prefix, { keepRecords: true });
  await new Promise((r) => setTimeout(r, 500));
  const again = new Sweeper();
  const ca = await putBackCaConfiguration(api, kv, again, prefix, { keepRecords: !options.leaving });
  sweeper.report.removed.push(...again.report.removed.filter((w) => !sweeper.report.removed.includes(w)));
  sweeper.report.problems = [...new Set([...sweeper.report.problems, ...again.report.problems])];
  if (options.leaving && ca.records) sweeper.report.notes = [rotationsLine(ca.rotations, prefix)];
  return sweeper.report;
}

/**
 * Removes what a run (or, with 'all', any stackproof run) made on a Consul agent: the
 * service-intentions and service-defaults entries of its services (exact intentions live in the
 * former), its ACL tokens and policies, and its namespaces; and puts the CA configuration back as
 * the run recorded it before its first change (ca-configuration-record.ts), then removes the
 * record. A CA rotation cannot be undone: the old root stays trusted, listed beside the new one,
 * until Consul prunes it; the run's end (`endOfRun`) and cleanup say how many the run made.
 */
export async function sweepMesh(api: ConsulAdminApi, prefix: string | 'all', options: { dryRun?: boolean; endOfRun?: boolean } = {}): Promise<SweepReport> {
  const sweeper = new Sweeper(options.dryRun);
  const mine = (name: string) => madeByRun(name, prefix);
  // First the CA configuration: of all a run leaves, it is the one change every service feels.
  if (options.endOfRun && prefix !== 'all') closeCaChanges(prefix);
  const ca = await putBackCaConfiguration(api, new ConsulKv(api.http), sweeper, prefix);
  if (options.endOfRun && prefix !== 'all') (sweeper.report.notes ??= []).push(rotationsLine(ca.rotations, prefix));
  else if (ca.records) (sweeper.report.notes ??= []).push(`CA rotations: ${ca.rotations} made by run ${ca.runs.join(', ')} (as its CA configuration record counted them); a rotation cannot be undone`);
  // Only the config entry kinds the agent's version has (1.8 answers 500 for service-intentions),
  // and before 1.9 the intentions made by ID (consul-capabilities.ts).
  const caps = await consulCapabilities(api);
  if (caps.intentionApi === 'legacy') await sweepLegacyIntentions(api, sweeper, mine);
  for (const kind of caps.configEntryKinds) {
    for (const name of ((await sweeper.attempt(`list ${kind}`, () => api.listConfigEntries(kind))) ?? []).filter(mine)) {
      await sweeper.remove(`config ${kind}/${name}`, () => api.deleteConfigEntry(kind, name));
    }
  }
  // An intention from one of the run's services to every destination (`S -> *`) lives in the
  // service-intentions entry named `*`, which is no run's: only the run's sources are taken out of it.
  if (caps.configEntryKinds.includes('service-intentions')) {
    const wildcard = await sweeper.attempt('read service-intentions/*', () => api.configEntry('service-intentions', '*'));
    const sources = z.array(z.object({ Name: z.string() }).passthrough()).catch([]).parse(wildcard?.Sources ?? []);
    for (const s of sources.filter((s) => mine(s.Name))) await sweeper.remove(`intention ${s.Name} -> *`, () => api.deleteExactIntention(s.Name, '*'));
  }
  const tokens = await sweeper.attempt('list ACL tokens', () => api.listTokens());
  for (const t of (tokens ?? []).filter((t) => mine(t.description))) await sweeper.remove(`ACL token ${t.description}`, () => api.deleteToken(t.accessor));
  const policies = await sweeper.attempt('list ACL policies', () => api.listPolicies());
  for (const p of (policies ?? []).filter((p) => mine(p.name))) await sweeper.remove(`ACL policy ${p.name}`, () => api.deletePolicy(p.id));
  // With ACLs off there are no tokens or policies to list: not a problem of the sweep.
  sweeper.report.problems = sweeper.report.problems.filter((p) => !/ACL support disabled|answered 401/.test(p));
  const ns = await api.namespaces();
  if (ns.status === 200) {
    const names = ((ns.json() as { Name?: string }[] | null) ?? []).map((n) => n.Name ?? '').filter(mine);
    for (const name of names) await sweeper.remove(`namespace ${name}`, () => api.deleteNamespace(name));
  }
  return sweeper.report;
}
