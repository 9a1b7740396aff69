import { buildFixtureJob, TICKS_SIGNAL, type FixtureTask } from '../client/fixture-job.ts';
import type { HttpClient } from '../client/http-client.ts';
import { NomadAdminApi, type AllocStub } from './nomad-admin-api.ts';
import { eligibilityRecordKey, isEligibilityRecord } from './scheduler-provisioner.ts';
import type { ActionResult, AllocationFixture, SchedulerFixtures, TokenGrants } from './scheduler-fixtures.ts';

/** How long an allocation may take to reach the state a rule waits for (a real client pulls images for nothing here, but may be slow). */
const ALLOCATION_DEADLINE_MS = 60_000;
const POLL_MS = 150;

/**
 * The scheduler fixtures through Nomad's own job, node, ACL and namespace API, with a management
 * token: on a real Nomad, on the reference's hashicorp dialect, or on the reference's control
 * listener, which serves the same API under /v1/control/scheduler/nomad (the `http` client carries
 * the base URL and the auth header). Every name comes from the caller and must be under the run
 * prefix, so the sweep finds what a rule made even when the rule dies half-way.
 */
export class NomadSchedulerFixtures implements SchedulerFixtures {
  readonly nodeId: string;
  private readonly api: NomadAdminApi;
  private readonly runPrefix: string;

  /** The target's own API for the node's dynamic metadata (the control listener's copy of Nomad's API has none). */
  private readonly metadataApi: NomadAdminApi;
  private recorded: Promise<void> | undefined;

  /**
   * `metadataHttp`: the target's own API with the profile's token, where `http` is the control
   * listener's; by default `http` itself.
   */
  constructor(http: HttpClient, options: { nodeId: string; runPrefix: string; metadataHttp?: HttpClient }) {
    this.api = new NomadAdminApi(http);
    this.metadataApi = options.metadataHttp ? new NomadAdminApi(options.metadataHttp) : this.api;
    this.nodeId = options.nodeId;
    this.runPrefix = options.runPrefix;
  }

  /** Names without the run prefix are refused: the sweep would never find what they name. */
  private owned(name: string, what: string): string {
    if (!name.startsWith(`${this.runPrefix}-`)) throw new Error(`${what} ${JSON.stringify(name)} is not under the run prefix ${this.runPrefix}-: cleanup could not find it`);
    return name;
  }

  async allocation(jobId: string, tasks: FixtureTask[], until: 'running' | 'complete', namespace = 'default'): Promise<AllocationFixture> {
    this.owned(jobId, 'job');
    await this.api.registerJob(buildFixtureJob({ id: jobId, namespace, kind: 'allocation', tasks }) as Record<string, unknown> & { ID: string });
    const deadline = Date.now() + ALLOCATION_DEADLINE_MS;
    let last: AllocStub | undefined;
    for (;;) {
      const allocs = await this.api.jobAllocations(jobId, namespace);
      // A re-registered job may leave an older allocation beside the new one: the newest is ours.
      last = allocs.filter((a) => a.JobID === jobId).sort((a, b) => (b.CreateIndex ?? 0) - (a.CreateIndex ?? 0))[0];
      if (last) {
        const states = Object.values(last.TaskStates ?? {});
        const allRunning = states.length === tasks.length && states.every((s) => s.State === 'running');
        if (until === 'complete' && last.ClientStatus === 'complete') return { id: last.ID, jobId, namespace };
        if (until === 'running' && last.ClientStatus === 'running' && allRunning) return { id: last.ID, jobId, namespace };
        if (last.ClientStatus === 'failed' || last.ClientStatus === 'lost' || (until === 'running' && last.ClientStatus === 'complete')) {
          throw new Error(`the allocation ${last.ID} of fixture job ${jobId} ended ${last.ClientStatus} before it was ${until} (task states ${describeStates(last)}): is the raw_exec driver enabled on node ${this.nodeId}?`);
        }
      }
      if (Date.now() > deadline) {
        throw new Error(`fixture job ${jobId} has no ${until} allocation after ${ALLOCATION_DEADLINE_MS / 1000} s: ${last ? `the last one is ${last.ClientStatus} (task states ${describeStates(last)})` : 'no allocation was placed'}`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  async startTicks(allocation: AllocationFixture, task: string): Promise<void> {
    this.owned(allocation.jobId, 'job');
    await this.api.signalTask(allocation.id, task, TICKS_SIGNAL);
  }

  async registerJob(jobId: string, namespace = 'default', meta?: Record<string, string>): Promise<ActionResult> {
    this.owned(jobId, 'job');
    const job = buildFixtureJob({ id: jobId, namespace, kind: 'event', tasks: [{ name: 'event' }], meta });
    return { index: (await this.api.registerJob(job as Record<string, unknown> & { ID: string })).JobModifyIndex };
  }

  async stopJob(jobId: string, namespace = 'default'): Promise<ActionResult> {
    this.owned(jobId, 'job');
    return { index: (await this.api.deregisterJob(jobId, namespace, false)).JobModifyIndex };
  }

  /** Purges a job the run made (no Job event; its evaluation only). */
  async purgeJob(jobId: string, namespace = 'default'): Promise<ActionResult> {
    this.owned(jobId, 'job');
    return { index: (await this.api.deregisterJob(jobId, namespace, true)).JobModifyIndex };
  }

  async nodeEligible(): Promise<boolean> {
    return (await this.api.node(this.nodeId)).SchedulingEligibility === 'eligible';
  }

  /**
   * The index of the Node event is the reply's `Index`: Node.UpdateEligibility (nomad/node_endpoint.go)
   * fills only that one (and the evaluations' fields), never NodeModifyIndex. Asking for the
   * eligibility the node already has writes nothing and publishes no event ("Nothing to do", every
   * index 0): that is refused here, since there is no event at any index to look for.
   */
  async setEligibility(eligible: boolean): Promise<ActionResult> {
    await (this.recorded ??= this.recordEligibility());
    const wanted = eligible ? 'eligible' : 'ineligible';
    const { Index } = await this.api.setEligibility(this.nodeId, eligible);
    if (!Index) throw new Error(`setting node ${this.nodeId} ${wanted} changed nothing (the answer's Index is ${Index}): the node was already ${wanted}, so no Node event was published (nomad/node_endpoint.go Node.UpdateEligibility returns before writing); read the eligibility first and toggle it away and back`);
    return { index: Index };
  }

  /**
   * Before the run first changes the node's eligibility, it writes what the eligibility was into the
   * node's dynamic metadata, under the run prefix: the run's own teardown knows it anyway, but after
   * a killed run only this record lets `stackproof cleanup` put it back. A record the run already
   * made stays (the node may be toggled by now); another run's record, if one is left, is copied,
   * since that run saw the node before either changed it. Where the node has no dynamic metadata
   * (Nomad before 1.5) the toggle still goes ahead, as before: the teardown still restores it.
   */
  private async recordEligibility(): Promise<void> {
    const key = eligibilityRecordKey(this.runPrefix);
    try {
      const dynamic = (await this.metadataApi.metadata(this.nodeId)).Dynamic;
      if (typeof dynamic[key] === 'string') return;
      const left = Object.entries(dynamic).find(([k, v]) => typeof v === 'string' && isEligibilityRecord(k))?.[1];
      const value = left ?? (await this.api.node(this.nodeId)).SchedulingEligibility;
      await this.metadataApi.setMetadata(this.nodeId, { [key]: value });
    } catch {
      // No record: only a killed run is worse off, as it was before records.
    }
  }

  async policy(name: string, grants: TokenGrants = {}): Promise<ActionResult> {
    this.owned(name, 'ACL policy');
    return { index: await this.api.upsertPolicy(name, policyRules(grants), `stackproof run ${this.runPrefix}`) };
  }

  async deletePolicy(name: string): Promise<ActionResult> {
    this.owned(name, 'ACL policy');
    return { index: await this.api.deletePolicy(name) };
  }

  async token(name: string, grants: TokenGrants): Promise<{ secret: string; accessor: string; index: number }> {
    this.owned(name, 'ACL token');
    await this.policy(name, grants);
    const t = await this.api.createToken(name, [name]);
    return { secret: t.SecretID, accessor: t.AccessorID, index: t.CreateIndex };
  }

  async tokenWithPolicies(name: string, policies: TokenGrants[]): Promise<{ secret: string; accessor: string; index: number }> {
    this.owned(name, 'ACL token');
    const names = policies.map((_, i) => `${name}-p${i}`);
    for (const [i, grants] of policies.entries()) await this.policy(names[i]!, grants);
    const t = await this.api.createToken(name, names);
    return { secret: t.SecretID, accessor: t.AccessorID, index: t.CreateIndex };
  }

  async deleteToken(accessor: string): Promise<ActionResult> {
    return { index: await this.api.deleteToken(accessor) };
  }

  async namespace(name: string): Promise<void> {
    this.owned(name, 'namespace');
    await this.api.createNamespace(name, `stackproof run ${this.runPrefix}`);
  }
}

/**
 * Nomad's policy language (nomad/acl/policy.go) for the grants: a namespace block with explicit
 * capabilities per namespace, a node block. A policy must grant or deny something, so an empty one
 * denies node access (the same as granting nothing).
 */
export function policyRules(grants: TokenGrants): string {
  const blocks: string[] = [];
  for (const [ns, caps] of Object.entries(grants.namespaces ?? {})) {
    blocks.push(`namespace ${JSON.stringify(ns)} {\n  capabilities = [${caps.map((c) => JSON.stringify(c)).join(', ')}]\n}`);
  }
  for (const b of grants.namespaceBlocks ?? []) {
    const lines = [...(b.policy ? [`  policy = ${JSON.stringify(b.policy)}`] : []), ...(b.capabilities ? [`  capabilities = [${b.capabilities.map((c) => JSON.stringify(c)).join(', ')}]`] : [])];
    blocks.push(`namespace ${JSON.stringify(b.pattern)} {\n${lines.join('\n')}\n}`);
  }
  const node = grants.nodeWrite ? 'write' : grants.nodeRead ? 'read' : grants.nodeDeny || !blocks.length ? 'deny' : undefined;
  if (node) blocks.push(`node {\n  policy = "${node}"\n}`);
  return blocks.join('\n');
}

function describeStates(a: AllocStub): string {
  const states = Object.entries(a.TaskStates ?? {});
  return states.length ? states.map(([task, s]) => `${task}: ${s.State}${s.Failed ? ' (failed)' : ''}`).join(', ') : 'none yet';
}
