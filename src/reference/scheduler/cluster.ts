import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FaultSet } from '../faults/types.ts';
import type { AllocationFs } from './alloc-fs.ts';
import type { EventBroker, SchedulerEvent } from './event-broker.ts';
import { constraintLabel, datacenterMatches, meetsConstraint, type ConstraintSpec, type NodeFacts } from './feasibility.ts';
import type { RunnableJob, RunnableTask } from './runnable-job.ts';
import { renderTemplates } from './runnable-job.ts';
import { taskEnvironment } from './task-environment.ts';
import { TaskProcess } from './task-process.ts';

type EventDraft = Omit<SchedulerEvent, 'Index'>;

/** A refused cluster request: the status and Nomad's plain-text message. */
export class ClusterError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Namespace {
  Name: string;
  Description: string;
  Quota: string;
  Meta: Record<string, string> | null;
  CreateIndex: number;
  ModifyIndex: number;
}

interface JobRecord {
  /** The job as registered, plus the server's fields. */
  job: Record<string, unknown>;
  spec: RunnableJob;
  /** The registered job without server fields, to tell a changed spec from the same one again. */
  specKey: string;
}

interface Evaluation {
  ID: string;
  Namespace: string;
  Priority: number;
  Type: string;
  TriggeredBy: string;
  JobID: string;
  JobModifyIndex: number;
  Status: 'pending' | 'complete' | 'blocked' | 'cancelled';
  StatusDescription: string;
  DeploymentID: string;
  PreviousEval: string;
  BlockedEval: string;
  NextEval: string;
  FailedTGAllocs: Record<string, unknown> | null;
  QueuedAllocations: Record<string, number> | null;
  CreateIndex: number;
  ModifyIndex: number;
  CreateTime: number;
  ModifyTime: number;
}

interface AllocRecord {
  ID: string;
  Namespace: string;
  EvalID: string;
  Name: string;
  NodeID: string;
  JobID: string;
  JobVersion: number;
  TaskGroup: string;
  DesiredStatus: 'run' | 'stop';
  DesiredDescription: string;
  ClientStatus: 'pending' | 'running' | 'complete' | 'failed';
  ClientDescription: string;
  CreateIndex: number;
  ModifyIndex: number;
  CreateTime: number;
  ModifyTime: number;
  runners: Map<string, TaskProcess>;
  /** Tasks not started yet: they have a pending state until their process is up. */
  taskNames: string[];
  /** The job as it was placed (Nomad's allocation carries it; the Allocation topic leaves it out). */
  jobAtPlacement: Record<string, unknown>;
}

const nowNanos = () => Date.now() * 1_000_000;

export interface ClusterOptions {
  broker: EventBroker;
  fs: AllocationFs;
  faults: FaultSet;
  nodeId: string;
  /** The raft index of a change that produces no event (namespaces). */
  nextIndex: () => number;
  /**
   * Nomad's frames (hashicorp dialect): one per state-store transaction, so a job's registration or
   * deregistration is two frames at one index, the job's and then its evaluation's. Otherwise a
   * change is one frame.
   */
  framePerTransaction: boolean;
  /** Whether the node takes new allocations (its scheduling eligibility). */
  nodeEligible: () => boolean;
  /** The node as constraints see it. */
  nodeFacts: () => NodeFacts;
  /** Whether the node's raw_exec driver is detected (the only driver the reference runs). */
  rawExec: boolean;
  /** At most this many allocations run at once; more wait in a blocked evaluation. */
  maxRunningAllocations: number;
  region: string;
}

/**
 * The scheduler's server state: namespaces, jobs, evaluations and allocations, changed only by
 * real actions, each change publishing the events Nomad's state store publishes for it
 * (nomad/state/events.go eventsFromChanges), its index the change's index: one frame per change,
 * or with framePerTransaction one per state-store transaction of the change, as Nomad does.
 */
export class Cluster {
  private readonly namespaces = new Map<string, Namespace>([['default', { Name: 'default', Description: 'Default shared namespace', Quota: '', Meta: null, CreateIndex: 1, ModifyIndex: 1 }]]);
  private readonly jobs = new Map<string, JobRecord>();
  /** Evaluations not yet terminal: no endpoint reads a finished one, so a load of registrations does not pile them up. */
  private readonly evals = new Map<string, Evaluation>();
  private readonly allocs = new Map<string, AllocRecord>();
  /** Each job's blocked evaluation, so a load of re-registrations does not scan every evaluation. */
  private readonly blockedByJob = new Map<string, Evaluation>();
  /** What each blocked evaluation waits for: only that change processes it again. */
  private readonly blockedCause = new Map<string, Blocked['kind']>();

  /** The reference is shutting down: no new placements, tasks still starting are killed. */
  private stopping = false;

  constructor(private readonly o: ClusterOptions) {}

  // --- namespaces -------------------------------------------------------------------------

  listNamespaces(): Namespace[] {
    return [...this.namespaces.values()].sort((a, b) => a.Name.localeCompare(b.Name));
  }

  namespace(name: string): Namespace | undefined {
    return this.namespaces.get(name);
  }

  upsertNamespace(name: string, body: Record<string, unknown>): number {
    const bodyName = typeof body.Name === 'string' && body.Name !== '' ? body.Name : name;
    if (bodyName !== name) throw new ClusterError(400, 'Namespace name does not match request path');
    // nomad/structs/structs.go validNamespaceName.
    if (!/^[a-zA-Z0-9-]{1,128}$/.test(name)) throw new ClusterError(400, `invalid name "${name}". Must match regex ^[a-zA-Z0-9-]{1,128}$`);
    const index = this.o.nextIndex();
    const prev = this.namespaces.get(name);
    const meta = body.Meta && typeof body.Meta === 'object' ? (body.Meta as Record<string, string>) : null;
    this.namespaces.set(name, { Name: name, Description: typeof body.Description === 'string' ? body.Description : '', Quota: '', Meta: meta, CreateIndex: prev?.CreateIndex ?? index, ModifyIndex: index });
    return index;
  }

  /** Nomad refuses to delete `default`, and a namespace that still has non-terminal jobs. */
  deleteNamespace(name: string, nonTerminalStatus: number): number {
    if (name === 'default') throw new ClusterError(400, 'can not delete default namespace');
    if (!this.namespaces.has(name)) throw new ClusterError(404, `namespace ${JSON.stringify(name)} not found`);
    const busy = [...this.jobs.values()].some((j) => j.spec.Namespace === name && j.job.Status !== 'dead');
    if (busy) throw new ClusterError(nonTerminalStatus, `namespace "${name}" has non-terminal jobs in regions: [global]`);
    // Nomad also waits for the allocations: a purged job's are stopped a moment after the purge.
    const running = [...this.allocs.values()].some((a) => a.Namespace === name && a.ClientStatus !== 'complete' && a.ClientStatus !== 'failed');
    if (running) throw new ClusterError(nonTerminalStatus, `namespace "${name}" has non-terminal allocations in regions: [global]`);
    this.namespaces.delete(name);
    return this.o.nextIndex();
  }

  // --- jobs -------------------------------------------------------------------------------

  listJobs(namespace: string, prefix: string, visible: (ns: string) => boolean): Record<string, unknown>[] {
    return [...this.jobs.values()]
      .filter((r) => (namespace === '*' || r.spec.Namespace === namespace) && visible(r.spec.Namespace) && r.spec.ID.startsWith(prefix))
      .sort((a, b) => a.spec.ID.localeCompare(b.spec.ID))
      .map(({ job }) => pick(job, ['ID', 'ParentID', 'Name', 'Namespace', 'Datacenters', 'Type', 'Priority', 'Periodic', 'ParameterizedJob', 'Stop', 'Status', 'StatusDescription', 'CreateIndex', 'ModifyIndex', 'JobModifyIndex', 'SubmitTime', 'Meta']));
  }

  job(namespace: string, id: string): Record<string, unknown> | undefined {
    return this.jobs.get(jobKey(namespace, id))?.job;
  }

  allocationsOf(namespace: string, jobId: string): Record<string, unknown>[] {
    return [...this.allocs.values()].filter((a) => a.Namespace === namespace && a.JobID === jobId).sort((a, b) => b.CreateIndex - a.CreateIndex).map((a) => this.allocStub(a));
  }

  allocation(id: string): Record<string, unknown> | undefined {
    const a = this.allocs.get(id);
    return a && { ...this.allocPayload(a), Job: a.jobAtPlacement };
  }

  /**
   * POST /v1/client/allocation/:id/signal, after the caller's alloc-lifecycle (checked by the API):
   * client/client.go SignalAllocation and client/allocrunner/alloc_runner.go Signal. A named task
   * that is not in the allocation is "Task not found"; one not running is "Task not running"; no
   * task signals every task, a task that cannot be signalled adding to a multierror (go-multierror's
   * list format), all 500 as Nomad's HTTP layer answers an uncoded error.
   */
  signalAllocation(id: string, task: string, signal: string): void {
    const a = this.allocs.get(id);
    if (!a) throw new ClusterError(404, `Unknown allocation ${JSON.stringify(id)}`);
    if (task !== '') {
      if (!a.taskNames.includes(task)) throw new ClusterError(500, 'Task not found');
      if (!a.runners.get(task)?.signal(signal)) throw new ClusterError(500, 'Task not running');
      return;
    }
    const errors = a.taskNames.filter((name) => !a.runners.get(name)?.signal(signal)).map((name) => `Failed to signal task: ${name}, err: Task not running`);
    if (errors.length === 1) throw new ClusterError(500, `1 error occurred:\n\t* ${errors[0]}\n\n`);
    if (errors.length > 1) throw new ClusterError(500, `${errors.length} errors occurred:\n\t${errors.map((e) => `* ${e}`).join('\n\t')}\n\n`);
  }

  /**
   * PUT /v1/jobs, for a job that passed Nomad's validation (nomad-job/admit.ts). A register of an
   * existing ID with a changed spec makes a new version and places it again (the old allocation is
   * stopped); the same spec again makes an evaluation that changes nothing, as Nomad's scheduler
   * finds nothing to do (a stopped job is placed again, since Stop changed).
   */
  register(spec: RunnableJob): { EvalID: string; EvalCreateIndex: number; JobModifyIndex: number; Warnings: string; Index: number } {
    if (!this.namespaces.has(spec.Namespace)) throw new ClusterError(400, `job "${spec.ID}" is in nonexistent namespace "${spec.Namespace}"`);
    const job = spec as unknown as Record<string, unknown>;
    const key = jobKey(spec.Namespace, spec.ID);
    const prev = this.jobs.get(key);
    const specKey = JSON.stringify(withoutServerFields(job));
    const changed = !prev || prev.specKey !== specKey || prev.job.Stop === true;
    const f = this.o.faults;
    const type = f.has('scheduler.events-type-unlisted') ? 'JobUpserted' : 'JobRegistered';
    let evalId = '';
    const changeIndex = this.o.broker.publishFrames((index) => {
      const version = prev ? (changed ? (prev.job.Version as number) + 1 : (prev.job.Version as number)) : 0;
      const record: JobRecord = {
        spec,
        specKey,
        job: {
          Region: 'global',
          Priority: 50,
          AllAtOnce: false,
          NodePool: 'default',
          ParentID: '',
          ...job,
          Status: changed ? 'pending' : prev!.job.Status,
          StatusDescription: '',
          Stop: false,
          Stable: false,
          Version: version,
          SubmitTime: nowNanos(),
          CreateIndex: prev ? prev.job.CreateIndex : index,
          ModifyIndex: index,
          JobModifyIndex: changed ? index : prev!.job.JobModifyIndex,
        },
      };
      this.jobs.set(key, record);
      const evaluation = this.newEval(spec, 'job-register', index);
      evalId = evaluation.ID;
      // Nomad: nomad/fsm.go applyUpsertJob commits the job (state UpsertJobWithRequest, v2.0.5;
      // UpsertJob, v1.6.1) and then the evaluation (upsertEvals) in two transactions at the log's index.
      const frames = this.transactions([this.jobEvent(record.job, type)], [this.evalEvent(evaluation, type)]);
      // The fault: the Job event once more, in a frame of its own at the same index.
      return f.has('scheduler.events-event-sent-again') ? [...frames, [this.jobEvent(record.job, type)]] : frames;
    });
    setImmediate(() => void this.evaluate(evalId, changed).catch((err) => console.error(`[reference] evaluating ${spec.ID}: ${(err as Error).message}`)));
    return { EvalID: evalId, EvalCreateIndex: changeIndex, JobModifyIndex: changeIndex, Warnings: '', Index: changeIndex };
  }

  /** DELETE /v1/job/:id: stops the job (Stop true), or with purge removes it from the state (its allocations stay until GC). */
  deregister(namespace: string, id: string, purge: boolean): { EvalID: string; EvalCreateIndex: number; JobModifyIndex: number; Index: number } {
    const key = jobKey(namespace, id);
    const record = this.jobs.get(key);
    // Nomad's Job.Deregister answers an unknown job with an empty reply and changes nothing.
    if (!record) return { EvalID: '', EvalCreateIndex: 0, JobModifyIndex: 0, Index: 0 };
    let evalId = '';
    // Nomad: nomad/fsm.go applyDeregisterJob commits the job's change (handleJobDeregister in
    // WithWriteTransaction) and then the evaluation (upsertEvals) in two transactions at the log's index.
    const changeIndex = this.o.broker.publishFrames((index) => {
      const evaluation = this.newEval(record.spec, 'job-deregister', index);
      evalId = evaluation.ID;
      if (purge) {
        // A deleted job's Job event carries the job as it was, marked Deleted (nomad/state/events.go
        // eventFromChange, deleted "jobs" row; structs.JobEvent.Deleted).
        this.jobs.delete(key);
        this.forgetBlocked(namespace, id);
        return this.transactions([this.jobEvent(record.job, 'JobDeregistered', true)], [this.evalEvent(evaluation, 'JobDeregistered')]);
      }
      const live = this.liveAllocs(namespace, id).length > 0;
      record.job = { ...record.job, Stop: true, Status: live ? record.job.Status : 'dead', ModifyIndex: index, JobModifyIndex: index, Version: (record.job.Version as number) + 1, SubmitTime: nowNanos() };
      return this.transactions([this.jobEvent(record.job, 'JobDeregistered')], [this.evalEvent(evaluation, 'JobDeregistered')]);
    });
    setImmediate(() => void this.evaluate(evalId, false).catch((err) => console.error(`[reference] evaluating ${id}: ${(err as Error).message}`)));
    return { EvalID: evalId, EvalCreateIndex: changeIndex, JobModifyIndex: changeIndex, Index: changeIndex };
  }

  /** The frames of a change made of these transactions' events: one each (framePerTransaction), or one for all. */
  private transactions(...events: EventDraft[][]): EventDraft[][] {
    return this.o.framePerTransaction ? events : [events.flat()];
  }

  /** Whether a namespace holds a job (for deleting it). */
  hasJobs(namespace: string): boolean {
    return [...this.jobs.values()].some((j) => j.spec.Namespace === namespace);
  }

  /** Stops every task (the reference shuts down). */
  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.allocs.values()].flatMap((a) => [...a.runners.values()].map((r) => r.kill())));
  }

  /** Kills every task at once, synchronously (the reference's process is exiting). */
  killAllNow(): void {
    for (const a of this.allocs.values()) for (const r of a.runners.values()) r.killNow();
  }

  /** The process IDs of the tasks still running (for tests that check nothing is left). */
  runningPids(): number[] {
    return [...this.allocs.values()].flatMap((a) => [...a.runners.values()].filter((r) => r.state !== 'dead' && r.pid !== undefined).map((r) => r.pid!));
  }

  // --- scheduling -------------------------------------------------------------------------

  /**
   * The node became eligible: blocked evaluations of placeable jobs are processed again, as
   * Nomad's blocked-evals tracker unblocks them when a node's class gains capacity.
   */
  nodeBecameEligible(): void {
    this.unblock('ineligible');
  }

  /** Blocked evaluations that waited for this are processed again. */
  private unblock(cause: 'ineligible' | 'exhausted'): void {
    for (const e of this.blockedByJob.values()) {
      if (e.Status !== 'blocked' || this.blockedCause.get(e.ID) !== cause) continue;
      const record = this.jobs.get(jobKey(e.Namespace, e.JobID));
      if (!record || record.job.Stop === true || this.infeasible(record.spec) !== undefined) continue;
      setImmediate(() => void this.evaluate(e.ID, true).catch((err) => console.error(`[reference] evaluating ${e.JobID}: ${(err as Error).message}`)));
    }
  }

  /**
   * The scheduler's work for one evaluation: stop what should no longer run, place what should
   * (when `place`), and complete the evaluation; an unplaceable job leaves a blocked evaluation.
   */
  private async evaluate(evalId: string, place: boolean): Promise<void> {
    const evaluation = this.evals.get(evalId);
    if (!evaluation) return;
    const record = this.jobs.get(jobKey(evaluation.Namespace, evaluation.JobID));
    const wanted = record && record.job.Stop !== true;
    const stale = this.liveAllocs(evaluation.Namespace, evaluation.JobID).filter((a) => !wanted || (place && a.JobVersion !== record!.job.Version));
    if (stale.length) await this.stopAllocs(stale, wanted ? 'alloc is being updated due to job update' : 'alloc not needed due to job update');
    // Already placed (a blocked evaluation processed again after its job was placed): nothing to do.
    const placed = wanted && this.liveAllocs(evaluation.Namespace, evaluation.JobID).some((a) => a.JobVersion === record.job.Version);
    if (!wanted || !place || placed) return this.completeEval(evaluation, null);
    const spec = record.spec;
    const group = spec.TaskGroups[0]!;
    const why = this.infeasible(spec) ?? (!this.o.nodeEligible() ? { kind: 'ineligible' as const } : this.runningCount() >= this.o.maxRunningAllocations ? { kind: 'exhausted' as const } : undefined);
    if (why) return this.blockEval(evaluation, spec, why);
    const onDisk = await this.o.fs.create({ namespace: spec.Namespace, jobId: spec.ID, tasks: group.Tasks.map((t) => ({ name: t.Name, logsDisabled: t.LogConfig.Disabled })), stopped: false });
    const alloc: AllocRecord = {
      ID: onDisk.id,
      Namespace: spec.Namespace,
      EvalID: evaluation.ID,
      Name: `${spec.ID}.${group.Name}[0]`,
      NodeID: this.o.nodeId,
      JobID: spec.ID,
      JobVersion: record.job.Version as number,
      TaskGroup: group.Name,
      DesiredStatus: 'run',
      DesiredDescription: '',
      ClientStatus: 'pending',
      ClientDescription: '',
      CreateIndex: 0,
      ModifyIndex: 0,
      CreateTime: nowNanos(),
      ModifyTime: nowNanos(),
      runners: new Map(),
      taskNames: group.Tasks.map((t) => t.Name),
      jobAtPlacement: record.job,
    };
    this.o.broker.publishWith((index) => {
      alloc.CreateIndex = index;
      alloc.ModifyIndex = index;
      this.allocs.set(alloc.ID, alloc);
      const events = [this.allocEvent(alloc, 'PlanResult')];
      if (record.job.Status !== 'running') {
        record.job = { ...record.job, Status: 'running', ModifyIndex: index };
        events.push(this.jobEvent(record.job, 'PlanResult'));
      }
      return events;
    });
    this.completeEval(evaluation, { [group.Name]: 0 });
    // The client runs the tasks: each its own process, its templates rendered first.
    await Promise.all(group.Tasks.map((task) => this.startTask(alloc, spec, task)));
  }

  /** Why the node can never run the job (its constraints, datacenters or driver), or undefined. */
  private infeasible(spec: RunnableJob): Blocked | undefined {
    const node = this.o.nodeFacts();
    if (!datacenterMatches(spec.Datacenters, node.datacenter)) return { kind: 'datacenter' };
    const group = spec.TaskGroups[0]!;
    const constraints: ConstraintSpec[] = [...(spec.Constraints ?? []), ...(group.Constraints ?? []), ...group.Tasks.flatMap((t) => t.Constraints ?? [])];
    const failing = constraints.find((c) => !meetsConstraint(c, node));
    if (failing) return { kind: 'constraint', label: constraintLabel(failing) };
    if (group.Tasks.some((t) => t.Driver !== 'raw_exec') || !this.o.rawExec) return { kind: 'constraint', label: 'missing drivers' };
    return undefined;
  }

  private runningCount(): number {
    return [...this.allocs.values()].filter((a) => a.ClientStatus === 'pending' || a.ClientStatus === 'running').length;
  }

  private async startTask(alloc: AllocRecord, spec: RunnableJob, task: RunnableTask): Promise<void> {
    const group = spec.TaskGroups[0]!;
    const env = taskEnvironment({
      allocDir: this.o.fs.dirOf(alloc.ID),
      allocId: alloc.ID,
      allocName: alloc.Name,
      allocIndex: 0,
      jobId: spec.ID,
      jobName: spec.Name,
      parentId: '',
      group: group.Name,
      task: task.Name,
      namespace: spec.Namespace,
      region: spec.Region || this.o.region,
      datacenter: this.o.nodeFacts().datacenter,
      cpu: task.Resources.CPU,
      memoryMB: task.Resources.MemoryMB,
      meta: { ...(spec.Meta ?? {}), ...(group.Meta ?? {}), ...(task.Meta ?? {}) },
      env: task.Env ?? {},
    });
    const config = task.Config ?? {};
    const launch = {
      allocDir: this.o.fs.dirOf(alloc.ID),
      name: task.Name,
      command: typeof config.command === 'string' ? config.command : '',
      args: Array.isArray(config.args) ? config.args.map(String) : [],
      env,
      templates: [] as ReturnType<typeof renderTemplates>,
      logs: { disabled: task.LogConfig.Disabled, maxFiles: task.LogConfig.MaxFiles, maxFileSizeMB: task.LogConfig.MaxFileSizeMB },
      killTimeoutMs: Math.round(task.KillTimeout / 1_000_000),
      killSignal: (task.KillSignal || 'SIGINT') as NodeJS.Signals,
    };
    try {
      // raw_exec's config spec (drivers/rawexec/driver.go taskConfigSpec): command, a required
      // string; args, a list of strings. Nomad decodes it on the client, when the task starts.
      const invalid = typeof config.command !== 'string' || config.command === '' ? 'Missing required argument: The argument "command" is required, but no definition was found.' : config.args !== undefined && config.args !== null && !(Array.isArray(config.args) && config.args.every((a) => typeof a === 'string')) ? 'Incorrect attribute value type: Inappropriate value for attribute "args": list of string required.' : undefined;
      if (invalid) alloc.runners.set(task.Name, TaskProcess.invalid(launch, invalid, () => this.taskChanged(alloc)));
      else {
        launch.templates = renderTemplates(task, env);
        const proc = await TaskProcess.start(launch, () => this.taskChanged(alloc));
        alloc.runners.set(task.Name, proc);
        // A stop that came while the task was being set up.
        if (alloc.DesiredStatus === 'stop' || this.stopping) await proc.kill();
      }
    } catch (err) {
      console.error(`[reference] starting task ${task.Name} of ${alloc.ID}: ${(err as Error).message}`);
      alloc.taskNames = alloc.taskNames.filter((n) => n !== task.Name);
    }
    this.taskChanged(alloc);
  }

  private completeEval(evaluation: Evaluation, queued: Record<string, number> | null): void {
    this.o.broker.publishWith((index) => {
      Object.assign(evaluation, { Status: 'complete', QueuedAllocations: queued ?? {}, ModifyIndex: index, ModifyTime: nowNanos() });
      this.evals.delete(evaluation.ID);
      this.blockedCause.delete(evaluation.ID);
      return [this.evalEvent(evaluation, 'EvaluationUpdated')];
    });
  }

  /** No node fits: the evaluation completes with a blocked follow-up that waits for one (and replaces the job's earlier one). */
  private blockEval(evaluation: Evaluation, spec: RunnableJob, why: Blocked): void {
    const group = spec.TaskGroups[0]!.Name;
    this.o.broker.publishWith((index) => {
      const events: EventDraft[] = [];
      const key = jobKey(spec.Namespace, spec.ID);
      const old = this.blockedByJob.get(key);
      if (old && old.Status === 'blocked' && old.ID !== evaluation.ID) {
        Object.assign(old, { Status: 'cancelled', StatusDescription: 'evaluation is superseded by a newer blocked evaluation', ModifyIndex: index, ModifyTime: nowNanos() });
        this.evals.delete(old.ID);
        events.push(this.evalEvent(old, 'EvaluationUpdated'));
      }
      const blocked = this.newEval(spec, 'queued-allocs', index);
      this.blockedByJob.set(key, blocked);
      if (old) this.blockedCause.delete(old.ID);
      this.blockedCause.set(blocked.ID, why.kind);
      Object.assign(blocked, { Status: 'blocked', StatusDescription: 'created to place remaining allocations', PreviousEval: evaluation.ID });
      const failed = {
        [group]: {
          NodesEvaluated: why.kind === 'datacenter' ? 0 : 1,
          NodesFiltered: why.kind === 'constraint' || why.kind === 'ineligible' ? 1 : 0,
          NodesInPool: 1,
          NodesAvailable: { dc1: why.kind === 'ineligible' ? 0 : 1 },
          ConstraintFiltered: why.kind === 'constraint' ? { [why.label]: 1 } : null,
          NodesExhausted: why.kind === 'exhausted' ? 1 : 0,
          DimensionExhausted: why.kind === 'exhausted' ? { 'allocations running on the reference node': 1 } : null,
          CoalescedFailures: 0,
        },
      };
      this.evals.delete(evaluation.ID);
      Object.assign(evaluation, { Status: 'complete', BlockedEval: blocked.ID, FailedTGAllocs: failed, QueuedAllocations: { [group]: 1 }, ModifyIndex: index, ModifyTime: nowNanos() });
      return [...events, this.evalEvent(blocked, 'EvaluationUpdated'), this.evalEvent(evaluation, 'EvaluationUpdated')];
    });
  }

  private async stopAllocs(allocs: AllocRecord[], why: string): Promise<void> {
    this.o.broker.publishWith((index) => {
      for (const a of allocs) Object.assign(a, { DesiredStatus: 'stop', DesiredDescription: why, ModifyIndex: index, ModifyTime: nowNanos() });
      return allocs.map((a) => this.allocEvent(a, 'PlanResult'));
    });
    await Promise.all(allocs.map(async (a) => {
      await Promise.all([...a.runners.values()].map((r) => r.kill()));
      // Tasks still being set up see DesiredStatus stop and are killed as they start.
      this.taskChanged(a);
    }));
  }

  /**
   * A task started or ended: the allocation's client status follows its tasks (Nomad's
   * client/allocrunner getClientStatus: pending while any task is pending, running while any runs,
   * then failed if any task failed, else complete), published when it changes.
   */
  private taskChanged(alloc: AllocRecord): void {
    const states = alloc.taskNames.map((n) => alloc.runners.get(n));
    let status: AllocRecord['ClientStatus'];
    if (states.some((t) => t === undefined || t.state === 'pending')) status = states.some((t) => t?.state === 'running') ? 'running' : 'pending';
    else if (states.some((t) => t!.state === 'running')) status = 'running';
    else status = states.some((t) => t!.failed) || alloc.taskNames.length === 0 ? 'failed' : 'complete';
    // Nomad reports running only once every task has started.
    if (status === 'running' && states.some((t) => t === undefined || t.state === 'pending')) status = 'pending';
    if (status === alloc.ClientStatus) return;
    if (status === 'pending') return;
    this.clientUpdate(alloc, status);
    if (status === 'complete' || status === 'failed') this.capacityFreed();
  }

  /** An allocation ended: evaluations blocked on the node's capacity are processed again. */
  private capacityFreed(): void {
    if (this.stopping) return;
    this.unblock('exhausted');
  }

  /** The client reports the allocation's status: AllocationUpdated, with the job's status when it changes. */
  private clientUpdate(alloc: AllocRecord, status: 'running' | 'complete' | 'failed'): void {
    const description = { running: 'Tasks are running', complete: 'All tasks have completed', failed: 'Failed tasks' }[status];
    this.o.broker.publishWith((index) => {
      Object.assign(alloc, { ClientStatus: status, ClientDescription: description, ModifyIndex: index, ModifyTime: nowNanos() });
      // A stopped allocation is what GC collects.
      if (status !== 'running') {
        const onDisk = this.o.fs.allocations.get(alloc.ID);
        if (onDisk) onDisk.stopped = true;
      }
      const events = [this.allocEvent(alloc, 'AllocationUpdated')];
      const record = this.jobs.get(jobKey(alloc.Namespace, alloc.JobID));
      if (record && status !== 'running' && record.job.Status !== 'dead' && this.liveAllocs(alloc.Namespace, alloc.JobID).length === 0) {
        record.job = { ...record.job, Status: 'dead', ModifyIndex: index };
        events.push(this.jobEvent(record.job, 'AllocationUpdated'));
      }
      return events;
    });
  }

  /** A purged job's blocked evaluation waits for nothing any more. */
  private forgetBlocked(namespace: string, jobId: string): void {
    const blocked = this.blockedByJob.get(jobKey(namespace, jobId));
    if (blocked) {
      Object.assign(blocked, { Status: 'cancelled', StatusDescription: 'job purged' });
      this.evals.delete(blocked.ID);
      this.blockedCause.delete(blocked.ID);
    }
    this.blockedByJob.delete(jobKey(namespace, jobId));
  }

  private liveAllocs(namespace: string, jobId: string): AllocRecord[] {
    return [...this.allocs.values()].filter((a) => a.Namespace === namespace && a.JobID === jobId && a.ClientStatus !== 'complete' && a.ClientStatus !== 'failed');
  }

  private newEval(spec: RunnableJob, triggeredBy: string, index: number): Evaluation {
    const e: Evaluation = {
      ID: randomUUID(),
      Namespace: spec.Namespace,
      Priority: 50,
      Type: spec.Type,
      TriggeredBy: triggeredBy,
      JobID: spec.ID,
      JobModifyIndex: index,
      Status: 'pending',
      StatusDescription: '',
      DeploymentID: '',
      PreviousEval: '',
      BlockedEval: '',
      NextEval: '',
      FailedTGAllocs: null,
      QueuedAllocations: null,
      CreateIndex: index,
      ModifyIndex: index,
      CreateTime: nowNanos(),
      ModifyTime: nowNanos(),
    };
    this.evals.set(e.ID, e);
    return e;
  }

  // --- event and response shapes ----------------------------------------------------------

  private jobEvent(job: Record<string, unknown>, type: string, deleted = false): EventDraft {
    const payload = this.o.faults.has('scheduler.events-payload-unkeyed') ? { ...job } : { Job: job, ...(deleted ? { Deleted: true } : {}) };
    return { Topic: 'Job', Type: type, Key: job.ID as string, Namespace: job.Namespace as string, FilterKeys: null, Payload: payload };
  }

  private evalEvent(e: Evaluation, type: string): EventDraft {
    return { Topic: 'Evaluation', Type: type, Key: e.ID, Namespace: e.Namespace, FilterKeys: [e.JobID, e.DeploymentID], Payload: { Evaluation: { ...e } } };
  }

  /** Nomad's Allocation events leave the job out (nomad/state/events.go: the allocation is copied with Job nil). */
  private allocEvent(a: AllocRecord, type: string): EventDraft {
    const allocation = this.o.faults.has('scheduler.events-allocation-carries-job') ? { ...this.allocPayload(a), Job: a.jobAtPlacement } : this.allocPayload(a);
    return { Topic: 'Allocation', Type: type, Key: a.ID, Namespace: a.Namespace, FilterKeys: [a.JobID, ''], Payload: { Allocation: allocation } };
  }

  private taskStates(a: AllocRecord): Record<string, unknown> | null {
    if (a.taskNames.length === 0) return null;
    const out: Record<string, unknown> = {};
    for (const name of a.taskNames) {
      const r = a.runners.get(name);
      out[name] = r
        ? { State: r.state, Failed: r.failed, Restarts: 0, LastRestart: null, StartedAt: r.startedAt?.toISOString() ?? null, FinishedAt: r.finishedAt?.toISOString() ?? null, Events: r.events }
        : { State: 'pending', Failed: false, Restarts: 0, LastRestart: null, StartedAt: null, FinishedAt: null, Events: [] };
    }
    return out;
  }

  private allocPayload(a: AllocRecord): Record<string, unknown> {
    const { runners: _r, jobAtPlacement: _j, taskNames: _t, ...fields } = a;
    return { ...fields, NodeName: hostname(), JobType: a.jobAtPlacement.Type, DeploymentID: '', TaskStates: this.taskStates(a) };
  }

  private allocStub(a: AllocRecord): Record<string, unknown> {
    return pick(this.allocPayload(a), ['ID', 'EvalID', 'Name', 'Namespace', 'NodeID', 'NodeName', 'JobID', 'JobType', 'JobVersion', 'TaskGroup', 'DesiredStatus', 'DesiredDescription', 'ClientStatus', 'ClientDescription', 'TaskStates', 'DeploymentID', 'CreateIndex', 'ModifyIndex', 'CreateTime', 'ModifyTime']);
  }
}

/** Why an evaluation could not place the job's allocation now. */
type Blocked = { kind: 'constraint'; label: string } | { kind: 'datacenter' } | { kind: 'ineligible' } | { kind: 'exhausted' };

function jobKey(namespace: string, id: string): string {
  return `${namespace}\u0000${id}`;
}

const SERVER_FIELDS = ['Status', 'StatusDescription', 'Stop', 'Stable', 'Version', 'SubmitTime', 'CreateIndex', 'ModifyIndex', 'JobModifyIndex'];

function withoutServerFields(job: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(job).filter(([k]) => !SERVER_FIELDS.includes(k)));
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}
