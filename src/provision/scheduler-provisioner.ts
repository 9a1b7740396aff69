import { z } from 'zod';
import { dialectFor, tokenHeaders } from '../config/dialects.ts';
import type { SchedulerTarget } from '../config/schema.ts';
import { HttpClient } from '../client/http-client.ts';
import { Redactor } from '../client/redact.ts';
import { NomadAdminApi } from './nomad-admin-api.ts';
import { madeByRun } from './run-prefix.ts';
import { Sweeper, type Provision, type SweepReport } from './sweep-report.ts';

/** What the scheduler suites learn about their fixtures beyond the target profile (plain data). */
export interface ProvisionedScheduler {
  provisioner: 'upstream' | 'control' | 'none';
  /** Why a capability is missing, by name (`schedulerFixtures`, `acl`, `management`, `namespaces`, `eligibility`). */
  missing: Record<string, string>;
  /** The node the fixture allocations run on, as detected (the profile's nodeId when it names one). */
  nodeId?: string;
  /** The base URL of the Nomad API the fixtures go through (the target, or the control listener's prefix). */
  adminUrl?: string;
}

export type SchedulerProvision = Provision<SchedulerTarget, ProvisionedScheduler>;

/** Where the reference's control listener serves Nomad's API (acting as management), in every dialect. */
export const CONTROL_NOMAD_PREFIX = '/v1/control/scheduler/nomad';

/**
 * Dynamic node metadata keys a run sets: `stackproof.<run prefix with '-' as '_'>.<rest>` (a
 * metadata key is dotted HCL identifiers, so the prefix's dashes would do, but an underscore keeps
 * the run's part one plain identifier everywhere).
 */
export function metadataKeyPrefix(prefix: string): string {
  return `stackproof.${prefix.replace(/-/g, '_')}.`;
}

const ANY_RUN_METADATA_KEY = /^stackproof\.sp_[0-9a-z]{10}\./;

/**
 * The dynamic node metadata key under which a run records the node's scheduling eligibility before
 * it first changes it, so that `stackproof cleanup` can put it back after the run was killed.
 */
export function eligibilityRecordKey(prefix: string): string {
  return `${metadataKeyPrefix(prefix)}eligibility`;
}

/** Whether a dynamic metadata key is some run's eligibility record. */
export const isEligibilityRecord = (key: string) => ANY_RUN_METADATA_KEY.test(key) && key.endsWith('.eligibility') && key.split('.').length === 3;
const ELIGIBILITIES = new Set(['eligible', 'ineligible']);

/** The scheduler target's Nomad API with its management token, outside the suites (no evidence kept). */
export function schedulerHttpFor(target: SchedulerTarget, timeoutMs = 10_000): HttpClient {
  const redactor = new Redactor();
  redactor.add(target.token);
  return new HttpClient({ baseUrl: target.url, defaultHeaders: tokenHeaders(dialectFor(target.dialect).scheduler.token, target.token), timeoutMs, redactor });
}

/** The same API as the reference's control listener serves it, acting as management. */
export function schedulerControlHttpFor(fixtures: NonNullable<SchedulerTarget['fixtures']>, timeoutMs = 10_000): HttpClient {
  const redactor = new Redactor();
  redactor.add(fixtures.controlToken);
  return new HttpClient({ baseUrl: `${fixtures.controlUrl.replace(/\/+$/, '')}${CONTROL_NOMAD_PREFIX}`, defaultHeaders: { authorization: `Bearer ${fixtures.controlToken}` }, timeoutMs, redactor });
}

/**
 * Decides who makes the scheduler fixtures and finds out what the agent can do: in the hashicorp
 * dialect Nomad's own API with the profile's management token (jobs run by the raw_exec driver, node
 * eligibility, ACL policies and tokens, namespaces); else the reference's control listener, which
 * serves the same API, when the profile names one. Whether ACLs are on, whether the token is a
 * management token, which node runs the allocations and whether raw_exec runs there are detected,
 * not declared. The node's eligibility is recorded so the teardown can put it back.
 */
export async function provisionScheduler(target: SchedulerTarget, prefix: string): Promise<SchedulerProvision> {
  const choice = target.provisioner ?? 'auto';
  const upstream = choice === 'upstream' || (choice === 'auto' && target.dialect === 'hashicorp');
  const missing: Record<string, string> = {};
  if (target.changeEligibility === false) missing.eligibility = "the profile forbids changing the node's scheduling eligibility (changeEligibility: false)";
  if (target.gcAll === false) missing.gcAll = "the profile forbids collecting every stopped allocation on the node, others' too (gcAll: false)";
  if (upstream && target.dialect === 'hashicorp') {
    const api = new NomadAdminApi(schedulerHttpFor(target));
    const found = await detect(api, target, missing, 'upstream').catch((err: Error) => {
      missing.schedulerFixtures = `finding out what the agent can do broke off (${err.message})`;
      return undefined;
    });
    if (found && !missing.schedulerFixtures) {
      const resolved: SchedulerTarget = { ...structuredClone(target), capabilities: { ...target.capabilities, schedulerFixtures: true } };
      const lines = [
        `scheduler fixtures: through Nomad's API, under the run prefix ${prefix} (fixture jobs on node ${found.nodeId}, ${missing.acl ? 'no ACL tokens' : 'ACL policies and tokens'}${missing.namespaces ? '' : ', namespaces'}${missing.eligibility ? '' : ', eligibility toggles'})`,
        ...Object.entries(missing).map(([c, why]) => `  not available: ${c}: ${why}`),
      ];
      return { provisioned: { provisioner: 'upstream', missing, nodeId: found.nodeId, adminUrl: target.url }, target: resolved, lines, teardown: () => sweepScheduler(api, prefix, found) };
    }
    if (choice === 'upstream' || !target.fixtures) {
      const why = missing.schedulerFixtures ?? 'the agent cannot make fixtures';
      return { provisioned: { provisioner: 'none', missing }, target, lines: [`scheduler fixtures: none made (${why})`], teardown: () => sweepScheduler(api, prefix, found ?? {}) };
    }
  }

  const control = choice !== 'none' && choice !== 'upstream' && Boolean(target.fixtures);
  if (!control) {
    const why = target.dialect === 'spec' ? 'the spec shows no way to make jobs, events or ACL tokens' : `the profile chose provisioner "${choice}"`;
    missing.schedulerFixtures ??= `no jobs, allocations, events or ACL tokens: ${why}, and the profile names no fixtures (fixtures.controlUrl)`;
    return { provisioned: { provisioner: 'none', missing }, target, lines: ['scheduler fixtures: none made'], teardown: async () => ({ removed: [], problems: [] }) };
  }
  // The control listener acts as management in every dialect: what it can do is known, but the node
  // and its eligibility are still read through it.
  delete missing.schedulerFixtures;
  delete missing.acl;
  delete missing.management;
  const http = schedulerControlHttpFor(target.fixtures!);
  const api = new NomadAdminApi(http);
  const metadataApi = new NomadAdminApi(schedulerHttpFor(target));
  const found = await detect(api, target, missing, 'control').catch((err: Error) => {
    missing.schedulerFixtures = `the control listener's Nomad API (${http.baseUrl}) broke off (${err.message})`;
    return undefined;
  });
  if (!found) return { provisioned: { provisioner: 'none', missing }, target, lines: [`scheduler fixtures: none made (${missing.schedulerFixtures})`], teardown: async () => ({ removed: [], problems: [] }) };
  const lines = [`scheduler fixtures: through the control listener ${target.fixtures!.controlUrl}`, ...Object.entries(missing).map(([c, why]) => `  not available: ${c}: ${why}`)];
  return { provisioned: { provisioner: 'control', missing, nodeId: found.nodeId, adminUrl: http.baseUrl }, target, lines, teardown: () => sweepScheduler(api, prefix, { ...found, metadataApi }) };
}

interface Found {
  nodeId: string;
  /** The node's scheduling eligibility before the run, to put back. */
  eligibility: string;
}

async function detect(api: NomadAdminApi, target: SchedulerTarget, missing: Record<string, string>, via: 'upstream' | 'control'): Promise<Found | undefined> {
  if (via === 'upstream') {
    const self = await api.tokenSelf();
    if (self.status === 200) {
      const type = self.parse(z.object({ Type: z.string() }).passthrough()).Type;
      if (type !== 'management') {
        missing.management = `the profile's token is a ${type} token, not a management token`;
        missing.schedulerFixtures = `the profile's token is a ${type} token: jobs, ACL policies and tokens, namespaces and eligibility need a management token (\`nomad acl bootstrap\` prints one)`;
        return undefined;
      }
    } else if (/ACL support disabled/i.test(self.text)) {
      missing.acl = 'ACLs are disabled on the agent (`nomad agent -dev` starts without them): no token is ever refused and no limited token can be made; start it with -acl-enabled (or acl { enabled = true }) and bootstrap a management token';
    } else {
      missing.schedulerFixtures = `the token cannot read itself (GET /v1/acl/token/self answered ${self.status} ${self.text.trim().slice(0, 120)}): is it a management token?`;
      return undefined;
    }
  }
  const nodeId = await findNodeId(api, target);
  if (!nodeId.id) {
    missing.schedulerFixtures = nodeId.why;
    return undefined;
  }
  const node = await api.node(nodeId.id);
  const rawExec = node.Drivers?.raw_exec;
  if (via === 'upstream' && !(rawExec?.Detected && rawExec.Healthy)) {
    missing.schedulerFixtures = `the raw_exec driver is ${rawExec ? `${rawExec.Detected ? 'detected' : 'not detected'}${rawExec.Healthy ? '' : ', unhealthy'}${rawExec.HealthDescription ? ` (${rawExec.HealthDescription})` : ''}` : 'not listed'} on node ${nodeId.id}: the fixture jobs run with it (\`nomad agent -dev\` enables it; elsewhere add plugin "raw_exec" { config { enabled = true } } to the client's configuration)`;
    return undefined;
  }
  try {
    await api.namespaces();
  } catch (err) {
    missing.namespaces = `no namespaces: ${(err as Error).message}`;
  }
  return { nodeId: nodeId.id, eligibility: node.SchedulingEligibility };
}

async function findNodeId(api: NomadAdminApi, target: SchedulerTarget): Promise<{ id?: string; why: string }> {
  if (target.nodeId) return { id: target.nodeId, why: '' };
  const local = await api.agentNodeId().catch(() => undefined);
  if (local) return { id: local, why: '' };
  const nodes = await api.nodes();
  if (nodes.length === 1) return { id: nodes[0]!.ID, why: '' };
  return { why: `the agent runs no client and the cluster has ${nodes.length} nodes: name the node the fixture jobs may run on (nodeId, or STACKPROOF_SCHEDULER_NODE_ID)` };
}

export interface SchedulerSweepOptions {
  dryRun?: boolean;
  /** The node whose dynamic metadata keys and eligibility the run may have changed. */
  nodeId?: string;
  /** Its eligibility when the run started (put back when it differs). */
  eligibility?: string;
  /**
   * The target's own API for the node metadata (spec 002 has it in both dialects, with the
   * profile's token), when the jobs and ACLs go through the control listener's copy of Nomad's API.
   */
  metadataApi?: NomadAdminApi;
}

/**
 * How long a namespace may still count its purged jobs, or their allocations while the client stops
 * them (a task's kill timeout is 5 s by default), before its deletion is given up.
 */
const NAMESPACE_RETRY_MS = 20_000;

/**
 * Removes what a run (or, with 'all', any stackproof run) made on a Nomad agent: its jobs in every
 * namespace (purged), its ACL tokens and policies, its namespaces (once their jobs are gone), its
 * dynamic node metadata keys; and puts the node's eligibility back as it was when the run started:
 * as the run's provisioner read it, else (a killed run) as the run recorded it in the node's metadata.
 */
export async function sweepScheduler(api: NomadAdminApi, prefix: string | 'all', options: SchedulerSweepOptions = {}): Promise<SweepReport> {
  const sweeper = new Sweeper(options.dryRun);
  const mine = (name: string) => madeByRun(name, prefix);
  const jobs = await sweeper.attempt('list jobs', () => api.jobs('sp-', '*'));
  const allocations: { id: string; job: string }[] = [];
  for (const job of (jobs ?? []).filter((j) => mine(j.ID))) {
    const ns = job.Namespace ?? 'default';
    const where = `${job.ID}${ns === 'default' ? '' : ` in namespace ${ns}`}`;
    // Its allocations are read before the purge: their directories stay on the node until collected.
    for (const a of (await sweeper.attempt(`list the allocations of job ${where}`, () => api.jobAllocations(job.ID, ns))) ?? []) allocations.push({ id: a.ID, job: job.ID });
    await sweeper.remove(`job ${where}`, () => api.purgeJob(job.ID, ns));
  }
  for (const a of allocations) await collectAllocation(api, options.metadataApi ?? api, sweeper, a.id, a.job);
  const tokens = await sweeper.attempt('list ACL tokens', () => api.tokens());
  for (const t of (tokens ?? []).filter((t) => mine(t.Name))) await sweeper.remove(`ACL token ${t.Name}`, () => api.deleteTokenRaw(t.AccessorID));
  const policies = await sweeper.attempt('list ACL policies', () => api.policies());
  for (const p of (policies ?? []).filter((p) => mine(p.Name))) await sweeper.remove(`ACL policy ${p.Name}`, () => api.deletePolicyRaw(p.Name));
  // With ACLs off there are no tokens or policies to list: not a problem of the sweep.
  sweeper.report.problems = sweeper.report.problems.filter((p) => !/ACL support disabled/i.test(p));
  const namespaces = await sweeper.attempt('list namespaces', () => api.namespaces());
  for (const ns of (namespaces ?? []).filter((n) => mine(n.Name))) {
    await sweeper.remove(`namespace ${ns.Name}`, () => deleteNamespaceWhenEmpty(api, ns.Name));
  }
  if (options.nodeId) await sweepNode(api, options.metadataApi ?? api, sweeper, prefix, options.nodeId, options.eligibility);
  return sweeper.report;
}

/** How long a purged job's allocation may take to stop (its tasks' kill timeout is 5 s by default) before its collection is given up. */
const ALLOCATION_STOP_MS = 30_000;
const TERMINAL = new Set(['complete', 'failed', 'lost']);

/**
 * Removes a purged job's allocation directory from the node: once the servers report the
 * allocation terminal, the node's client GC endpoint collects it (`api` reads the allocation,
 * `client` is the target's own API, which serves the client endpoints). An allocation the run
 * already collected, or the servers already forgot, is gone: nothing to report.
 */
async function collectAllocation(api: NomadAdminApi, client: NomadAdminApi, sweeper: Sweeper, id: string, job: string): Promise<void> {
  const what = `allocation ${id.slice(0, 8)} of job ${job} (its directory on the node)`;
  // Only a directory the node still has is counted, in a listing and in a removal alike.
  if (!(await sweeper.attempt(`look for ${what}`, () => client.allocationDirPresent(id)))) return;
  if (sweeper.dryRun) return void sweeper.report.removed.push(what);
  const deadline = Date.now() + ALLOCATION_STOP_MS;
  for (;;) {
    const res = await sweeper.attempt(`read ${what}`, () => api.allocation(id));
    if (!res) return;
    if (res.status === 404) return;
    const status = res.status === 200 ? (JSON.parse(res.text) as { ClientStatus?: string }).ClientStatus ?? '' : '';
    if (TERMINAL.has(status)) break;
    if (Date.now() > deadline) return void sweeper.report.problems.push(`${what}: still ${status || `unreadable (${res.status})`} ${ALLOCATION_STOP_MS / 1000} s after its job was purged; collect it later with stackproof cleanup`);
    await new Promise((r) => setTimeout(r, 250));
  }
  // Nomad's client answers one message for an allocation it no longer has and one it has not yet
  // seen stop ("No such allocation on client, or allocation not eligible for GC"): asked again for a
  // few seconds, then taken as collected before (by the rule that tested GC, or a GC of all).
  const settle = Date.now() + 5_000;
  for (;;) {
    const gc = await sweeper.attempt(what, () => client.collectAllocation(id));
    if (!gc) return;
    if (gc.status < 300) return void sweeper.report.removed.push(what);
    if (gc.status === 404 || /unknown allocation/i.test(gc.text)) return;
    if (!/no such allocation|not eligible|is running/i.test(gc.text)) return void sweeper.report.problems.push(`${what}: answered ${gc.status} ${gc.text.trim().slice(0, 160)}`);
    if (Date.now() > settle) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Nomad refuses to delete a namespace while it has non-terminal jobs or allocations
 * (nomad/namespace_endpoint.go DeleteNamespaces): retry briefly while it says so.
 */
async function deleteNamespaceWhenEmpty(api: NomadAdminApi, name: string) {
  const deadline = Date.now() + NAMESPACE_RETRY_MS;
  for (;;) {
    const res = await api.deleteNamespace(name);
    if (res.status < 300 || res.status === 404 || Date.now() > deadline || !/non-terminal|jobs|allocations/i.test(res.text)) return res;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function sweepNode(api: NomadAdminApi, metadataApi: NomadAdminApi, sweeper: Sweeper, prefix: string | 'all', nodeId: string, eligibility: string | undefined): Promise<void> {
  const meta = await sweeper.attempt(`read the metadata of node ${nodeId}`, () => metadataApi.metadata(nodeId));
  const ours = (key: string) => (prefix === 'all' ? ANY_RUN_METADATA_KEY.test(key) : key.startsWith(metadataKeyPrefix(prefix)));
  const keys = Object.entries(meta?.Dynamic ?? {}).filter(([k, v]) => v !== null && ours(k));
  // The eligibility to put back: the one the provisioner read at the start of this run, else (a
  // killed run's cleanup) what the run recorded on the node before it first changed it.
  const recordKeys = keys.filter(([k]) => isEligibilityRecord(k));
  const recorded = [...new Set(recordKeys.map(([, v]) => v!))];
  // Whose change it reverts, for the listings: this run's, or the runs that left a record.
  const runs = prefix !== 'all' ? prefix : recordKeys.map(([k]) => runOfKey(k)).join(', ');
  let wanted = eligibility;
  if (!wanted && recorded.length > 1) sweeper.report.problems.push(`node ${nodeId}: the runs recorded different eligibilities (${recorded.join(', ')}); it is left as it is, and so are their records`);
  else if (!wanted && recorded.length === 1 && ELIGIBILITIES.has(recorded[0]!)) wanted = recorded[0];
  let restored = true;
  if (wanted) {
    const node = await sweeper.attempt(`read node ${nodeId}`, () => api.node(nodeId));
    if (!node) restored = false;
    else if (node.SchedulingEligibility !== wanted) {
      const target = wanted;
      restored = await sweeper.remove(`node ${nodeId} eligibility back to ${target}${runs ? ` (run ${runs})` : ''}`, async () => {
        try {
          await api.setEligibility(nodeId, target === 'eligible');
          return { status: 200, text: '' };
        } catch (err) {
          return { status: 500, text: (err as Error).message };
        }
      });
    }
  }
  for (const [key] of keys) {
    // A record goes only once the eligibility is back (or there was nothing to put back): a cleanup
    // that failed half-way can be run again.
    if (isEligibilityRecord(key) && (!restored || recorded.length > 1)) continue;
    await sweeper.remove(`node metadata key ${key} (run ${runOfKey(key)})`, () => metadataApi.unsetMetadata(nodeId, [key]));
  }
  if (!sweeper.dryRun) await noteKeptNulls(metadataApi, sweeper, nodeId, ours);
}

/**
 * Says which of the runs' keys the node keeps as null once unset. Spec 002 lets a target keep an
 * unset key as null in Dynamic; Nomad 1.5.0-1.5.9 and 1.6.0-1.6.2 do (hashicorp/nomad
 * client/meta_endpoint.go NodeMeta.Apply copies the null into the dynamic map; PR 18664 deletes it
 * since 1.5.10, 1.6.3 and 1.7.0), and no API call removes such a key: the node's Meta is as found,
 * its Dynamic map is not, and the run says so.
 */
async function noteKeptNulls(metadataApi: NomadAdminApi, sweeper: Sweeper, nodeId: string, ours: (key: string) => boolean): Promise<void> {
  const after = await sweeper.attempt(`read the metadata of node ${nodeId} again`, () => metadataApi.metadata(nodeId));
  const kept = Object.entries(after?.Dynamic ?? {}).filter(([k, v]) => v === null && ours(k)).map(([k]) => k).sort();
  if (kept.length === 0) return;
  const runs = [...new Set(kept.map(runOfKey))].join(', ');
  (sweeper.report.notes ??= []).push(
    `node ${nodeId} keeps ${kept.length} dynamic metadata key(s) of run ${runs} as null (${kept.join(', ')}): the target keeps a key unset through the API, as spec 002 allows and Nomad 1.5.0-1.5.9 and 1.6.0-1.6.2 do (client/meta_endpoint.go NodeMeta.Apply), and no API call removes one; the node's Meta is as found`,
  );
}

/** The run prefix in a metadata key has underscores: the run as the listings name it. */
const runOfKey = (key: string) => /^stackproof\.(sp_[0-9a-z]{10})\./.exec(key)?.[1]?.replace('_', '-');
