/**
 * The defaults Nomad fills in between the HTTP body and validation, re-implemented:
 *  1. api/*.go Canonicalize (called by command/agent/job_endpoint.go ApiJobToStructJob);
 *  2. the conversion itself (ApiJobToStructJob, ApiTgToStructsTG, ApiTaskToStructsTask,
 *     ApiResourcesToStructs, apiLogConfigToStructs);
 *  3. the Job.Register admission mutators: jobCanonicalizer (nomad/job_endpoint_hooks.go, which
 *     calls structs.Job.Canonicalize and defaults Priority 0 to the server's JobDefaultPriority)
 *     and jobNodePoolMutatingHook (nomad/job_endpoint_hook_node_pool_ce.go).
 * Read at v1.9.7 and checked unchanged for these fields at v1.10.5, v1.11.0 and main (aa026cc99c).
 */
import type {
  ApiConstraint, ApiJob, ApiReschedulePolicy, ApiRestartPolicy, ApiTask, ApiTaskGroup, ApiTemplate,
} from './api-job.ts';
import type {
  CanonicalConstraint, CanonicalJob, CanonicalReschedulePolicy, CanonicalRestartPolicy, CanonicalTask,
  CanonicalTaskGroup, CanonicalTemplate, GroupExtras,
} from './canonical-job.ts';
import { NOMAD_VERSION, nomadAtLeast } from '../nomad-version.ts';

export const SECOND = 1_000_000_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

// api/jobs.go JobDefaultPriority; nomad/structs/structs.go JobDefaultPriority (server default config)
export const JOB_DEFAULT_PRIORITY = 50;
// nomad/structs/structs.go DefaultKillTimeout; api/tasks.go Task.Canonicalize
export const DEFAULT_KILL_TIMEOUT = 5 * SECOND;
// api/jobs.go DefaultUpdateStrategy ProgressDeadline (service jobs get it when they give no update block)
export const DEFAULT_PROGRESS_DEADLINE = 10 * MINUTE;

/** api/tasks.go defaultServiceJobRestartPolicy / defaultBatchJobRestartPolicy, picked in TaskGroup.Canonicalize. */
function defaultRestartPolicy(jobType: string): CanonicalRestartPolicy {
  // "service" and "system" take the service policy; everything else (batch, sysbatch, unknown) the batch one.
  if (jobType === 'service' || jobType === 'system') {
    return { Attempts: 2, Interval: 30 * MINUTE, Delay: 15 * SECOND, Mode: 'fail', RenderTemplates: false };
  }
  return { Attempts: 3, Interval: 24 * HOUR, Delay: 15 * SECOND, Mode: 'fail', RenderTemplates: false };
}

/** api/tasks.go RestartPolicy.Merge: the given fields override. */
function mergeRestart(base: CanonicalRestartPolicy, rp: ApiRestartPolicy | undefined): CanonicalRestartPolicy {
  if (!rp) return { ...base };
  return {
    Attempts: rp.Attempts ?? base.Attempts,
    Interval: rp.Interval ?? base.Interval,
    Delay: rp.Delay ?? base.Delay,
    Mode: rp.Mode ?? base.Mode,
    RenderTemplates: rp.RenderTemplates ?? base.RenderTemplates,
  };
}

/** api/tasks.go NewDefaultReschedulePolicy (in sync with structs DefaultServiceJobReschedulePolicy / DefaultBatchJobReschedulePolicy). */
export function defaultReschedulePolicy(jobType: string): CanonicalReschedulePolicy {
  switch (jobType) {
    case 'service':
      return { Attempts: 0, Interval: 0, Delay: 30 * SECOND, DelayFunction: 'exponential', MaxDelay: HOUR, Unlimited: true };
    case 'batch':
      return { Attempts: 1, Interval: 24 * HOUR, Delay: 5 * SECOND, DelayFunction: 'constant', MaxDelay: 0, Unlimited: false };
    default:
      // "system" and any other type (sysbatch, unknown: GH-7203) get an all-zero policy.
      return { Attempts: 0, Interval: 0, Delay: 0, DelayFunction: '', MaxDelay: 0, Unlimited: false };
  }
}

function emptyToNull<T extends object>(v: T | undefined): T | null {
  if (v === undefined) return null;
  if (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0) return null;
  return v;
}

/** ApiConstraintsToStructs, then structs Canonicalize's "empty slice is nil". A null element is taken as empty (Nomad's agent would dereference nil). */
function constraints(list: (ApiConstraint | undefined)[] | undefined): CanonicalConstraint[] | null {
  if (!list || list.length === 0) return null;
  return list.map((c) => ({ LTarget: c?.LTarget ?? '', RTarget: c?.RTarget ?? '', Operand: c?.Operand ?? '' }));
}

/** api/jobs.go UpdateStrategy.Empty, over the undecoded block: no field set to a non-zero value. */
function updateEmpty(u: unknown): boolean {
  if (u === null || u === undefined || typeof u !== 'object') return true;
  return Object.values(u as Record<string, unknown>).every((v) => v === null || v === 0 || v === '' || v === false);
}

/** api/tasks.go Template.Canonicalize, then ApiTaskToStructsTask's copy and structs Template.Canonicalize. */
function template(t: ApiTemplate | undefined): CanonicalTemplate {
  const tmpl = t ?? {};
  const changeMode = tmpl.ChangeMode ?? 'restart';
  const changeSignal = tmpl.ChangeSignal === undefined ? (changeMode === 'signal' ? 'SIGHUP' : '') : tmpl.ChangeSignal.toUpperCase();
  const cs = tmpl.ChangeScript;
  return {
    SourcePath: tmpl.SourcePath ?? '',
    DestPath: tmpl.DestPath ?? '',
    EmbeddedTmpl: tmpl.EmbeddedTmpl ?? '',
    ChangeMode: changeMode,
    ChangeSignal: changeSignal,
    ChangeScript: cs === undefined ? null : {
      Command: cs.Command ?? '', Args: cs.Args ?? [], Timeout: cs.Timeout ?? 5 * SECOND, FailOnError: cs.FailOnError ?? false,
    },
    Splay: tmpl.Splay ?? 5 * SECOND,
    Perms: tmpl.Perms ?? '0644',
    Uid: tmpl.Uid ?? null,
    Gid: tmpl.Gid ?? null,
    LeftDelim: tmpl.LeftDelim ?? '{{',
    RightDelim: tmpl.RightDelim ?? '}}',
    Envvars: tmpl.Envvars ?? false,
    VaultGrace: tmpl.VaultGrace ?? 0,
    Wait: tmpl.Wait === undefined ? null : { Min: tmpl.Wait.Min ?? null, Max: tmpl.Wait.Max ?? null },
    ErrMissingKey: tmpl.ErrMissingKey ?? false,
  };
}

function task(t: ApiTask | undefined, groupRestart: CanonicalRestartPolicy): CanonicalTask {
  const at = t ?? {};
  const r = at.Resources ?? {};
  // api/resources.go Resources.Canonicalize: CPU defaults to 100 only when neither cpu nor cores is given;
  // with cores given and no cpu, CPU is 0. MemoryMB defaults to 300. MemoryMaxMB/SecretsMB: 0 when nil
  // (ApiResourcesToStructs). DiskMB is not copied by ApiResourcesToStructs, so it never reaches validation.
  const cores = r.Cores ?? 0;
  const cpu = r.CPU ?? (r.Cores === undefined ? 100 : 0);
  // api/tasks.go Task.Canonicalize KillTimeout 5s when nil; structs Task.Canonicalize 5s when 0.
  const killTimeout = at.KillTimeout === undefined || at.KillTimeout === 0 ? DEFAULT_KILL_TIMEOUT : at.KillTimeout;
  const lc = at.LogConfig ?? {};
  const templates = at.Templates && at.Templates.length > 0 ? at.Templates.map(template) : null;
  return {
    Name: at.Name ?? '',
    Driver: at.Driver ?? '',
    User: at.User ?? '',
    Config: emptyToNull(at.Config),
    Env: emptyToNull(at.Env),
    Meta: emptyToNull(at.Meta),
    Constraints: constraints(at.Constraints),
    Templates: templates,
    // api/tasks.go DefaultLogConfig / LogConfig.Canonicalize: 10 files of 10 MB, not disabled.
    LogConfig: { MaxFiles: lc.MaxFiles ?? 10, MaxFileSizeMB: lc.MaxFileSizeMB ?? 10, Disabled: lc.Disabled ?? false },
    Resources: { CPU: cpu, MemoryMB: r.MemoryMB ?? 300, MemoryMaxMB: r.MemoryMaxMB ?? 0, Cores: cores, SecretsMB: r.SecretsMB ?? 0 },
    // api/tasks.go Task.Canonicalize: the group's restart policy, with the task's own fields merged over it.
    RestartPolicy: mergeRestart(groupRestart, at.RestartPolicy),
    KillTimeout: killTimeout,
    KillSignal: at.KillSignal ?? '',
    ShutdownDelay: at.ShutdownDelay ?? 0,
    Leader: at.Leader ?? false,
    Kind: at.Kind ?? '',
  };
}

function reschedule(job: ApiJob, g: ApiTaskGroup, jobType: string, version: string): CanonicalReschedulePolicy | null {
  // api/tasks.go TaskGroup.Canonicalize: job.Reschedule merged under the group's; the type's default
  // when neither is given, except for system jobs (and, since v1.11.0, sysbatch jobs: the check
  // `*job.Type != JobTypeSysbatch && *job.Type != JobTypeSystem`); then ReschedulePolicy.Canonicalize
  // fills gaps from the type's default.
  let rp: ApiReschedulePolicy | undefined;
  if (job.Reschedule && g.ReschedulePolicy) rp = { ...job.Reschedule, ...definedOnly(g.ReschedulePolicy) };
  else if (job.Reschedule) rp = { ...job.Reschedule };
  else if (g.ReschedulePolicy) rp = { ...g.ReschedulePolicy };
  if (rp === undefined) {
    if (jobType === 'system' || (jobType === 'sysbatch' && nomadAtLeast(version, '1.11.0'))) {
      // structs TaskGroup.Canonicalize: NewReschedulePolicy("system") and ("sysbatch") are nil too.
      return null;
    }
    return defaultReschedulePolicy(jobType);
  }
  const dp = defaultReschedulePolicy(jobType);
  return {
    Attempts: rp.Attempts ?? dp.Attempts,
    Interval: rp.Interval ?? dp.Interval,
    Delay: rp.Delay ?? dp.Delay,
    DelayFunction: rp.DelayFunction ?? dp.DelayFunction,
    MaxDelay: rp.MaxDelay ?? dp.MaxDelay,
    Unlimited: rp.Unlimited ?? dp.Unlimited,
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function progressDeadlineOf(u: unknown): number | undefined {
  if (u === null || u === undefined || typeof u !== 'object') return undefined;
  const entry = Object.entries(u as Record<string, unknown>).find(([k]) => k.toLowerCase() === 'progressdeadline');
  return typeof entry?.[1] === 'number' ? entry[1] : undefined;
}

function group(job: ApiJob & { Migrate?: unknown }, g: ApiTaskGroup | undefined, jobType: string, version: string): { group: CanonicalTaskGroup; extras: GroupExtras } {
  const ag = g ?? {};
  // api/tasks.go TaskGroup.Canonicalize: Count from scaling.min when given, else 1.
  const scalingMin = typeof ag.Scaling === 'object' && ag.Scaling !== null ? (ag.Scaling as Record<string, unknown>).Min : undefined;
  const count = ag.Count ?? (typeof scalingMin === 'number' ? scalingMin : 1);
  const restart = mergeRestart(defaultRestartPolicy(jobType), ag.RestartPolicy);
  const ed = ag.EphemeralDisk ?? {};
  // Update: the group's, or the job's when that is non-empty (api TaskGroup.Canonicalize); service jobs
  // always have one (api Job.Canonicalize DefaultUpdateStrategy).
  const hasUpdate = ag.Update !== undefined || !updateEmpty(job.Update) || jobType === 'service';
  const progressDeadline = progressDeadlineOf(ag.Update) ?? progressDeadlineOf(job.Update) ?? DEFAULT_PROGRESS_DEADLINE;
  const tasks = (ag.Tasks ?? []).map((t) => task(t, restart));
  return {
    group: {
      Name: ag.Name ?? '',
      Count: count,
      Constraints: constraints(ag.Constraints),
      RestartPolicy: restart,
      ReschedulePolicy: reschedule(job, ag, jobType, version),
      // api/tasks.go DefaultEphemeralDisk / EphemeralDisk.Canonicalize: 300 MB, not sticky, no migrate.
      EphemeralDisk: { SizeMB: ed.SizeMB ?? 300, Sticky: ed.Sticky ?? false, Migrate: ed.Migrate ?? false },
      Meta: emptyToNull(ag.Meta),
      ShutdownDelay: ag.ShutdownDelay ?? null,
      StopAfterClientDisconnect: ag.StopAfterClientDisconnect ?? null,
      MaxClientDisconnect: ag.MaxClientDisconnect ?? null,
      PreventRescheduleOnLost: ag.PreventRescheduleOnLost ?? false,
      Tasks: tasks,
    },
    extras: {
      hasUpdate: jobType === 'service' ? true : hasUpdate,
      // Migrate: the group's or the job's; service jobs always get one (api TaskGroup.Canonicalize).
      hasMigrate: jobType === 'service' || ag.Migrate !== undefined || job.Migrate !== undefined,
      progressDeadline,
    },
  };
}

/**
 * The canonical job, given the namespace and region command/agent/job_endpoint.go
 * apiJobAndRequestToStructs settled on (namespaceForJob, regionForJob).
 */
export function canonicalizeJob(job: ApiJob & { Migrate?: unknown }, namespace: string, region: string, version: string = NOMAD_VERSION): { job: CanonicalJob; extras: GroupExtras[] } {
  const id = job.ID ?? '';
  const type = job.Type ?? 'service'; // api/jobs.go Job.Canonicalize
  const groups = (job.TaskGroups ?? []).map((g) => group(job, g, type, version));
  // api Job.Canonicalize Priority 50 when nil; jobCanonicalizer.Mutate: 0 becomes the server's JobDefaultPriority (50).
  const priority = job.Priority === undefined || job.Priority === 0 ? JOB_DEFAULT_PRIORITY : job.Priority;
  return {
    job: {
      ID: id,
      Name: job.Name ?? id, // api/jobs.go Job.Canonicalize: Name = ID
      Namespace: namespace === '' ? 'default' : namespace, // structs Job.Canonicalize
      Region: region,
      Type: type,
      Priority: priority,
      AllAtOnce: job.AllAtOnce ?? false,
      Stop: job.Stop ?? false,
      // structs Job.Canonicalize: no datacenters means all of them.
      Datacenters: job.Datacenters && job.Datacenters.length > 0 ? job.Datacenters.map((d) => d ?? '') : ['*'],
      // jobNodePoolMutatingHook.Mutate (CE): empty pool is "default".
      NodePool: job.NodePool === undefined || job.NodePool === '' ? 'default' : job.NodePool,
      Meta: emptyToNull(job.Meta),
      Constraints: constraints(job.Constraints),
      TaskGroups: groups.map((g) => g.group),
    },
    extras: groups.map((g) => g.extras),
  };
}

export type { ApiTemplate };
