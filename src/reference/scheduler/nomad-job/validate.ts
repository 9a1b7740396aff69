/**
 * Nomad's job validation, re-implemented from nomad/structs/structs.go (read at v1.9.7, the release
 * the harness's CI runs; differences at v1.10.5, v1.11.0 and main aa026cc99c are noted beside the
 * checks they touch) and nomad/job_endpoint_hooks.go jobValidate.Validate.
 *
 * Each function returns the entries of the multierror.Error its Go counterpart returns (string[],
 * empty for nil). How a caller folds them in (flattened or nested as formatted text) follows what
 * the Go caller does; see multierror.ts.
 */
import type {
  CanonicalConstraint, CanonicalEphemeralDisk, CanonicalJob, CanonicalLogConfig, CanonicalReschedulePolicy,
  CanonicalResources, CanonicalRestartPolicy, CanonicalTask, CanonicalTaskGroup, CanonicalTemplate, CanonicalWaitConfig,
  GroupExtras,
} from './canonical-job.ts';
import { goRegexpError, semverConstraintError, versionConstraintError } from './constraint-operands.ts';
import { flatten, formatList, goDuration, goDurationRound, goQuote, goQuoteList, nest } from './multierror.ts';
import { SECOND } from './canonicalize.ts';
import { NOMAD_VERSION, nomadAtLeast } from '../nomad-version.ts';

// nomad/structs/structs.go constants
const JOB_MIN_PRIORITY = 1; // JobMinPriority
const JOB_MAX_PRIORITY = 100; // JobDefaultMaxPriority, the server's default JobMaxPriority (nomad/config.go DefaultConfig)
const RESTART_POLICY_MIN_INTERVAL = 5 * SECOND; // RestartPolicyMinInterval
const RESCHEDULE_POLICY_MIN_INTERVAL = 15 * SECOND; // ReschedulePolicyMinInterval
const RESCHEDULE_POLICY_MIN_DELAY = 5 * SECOND; // ReschedulePolicyMinDelay
const RESCHEDULE_DELAY_FUNCTIONS = ['constant', 'exponential', 'fibonacci']; // RescheduleDelayFunctions
const MIN_CPU = 1; // MinResources
const MIN_MEMORY_MB = 10; // MinResources
const MEMORY_NO_LIMIT = -1; // memoryNoLimit
const TEMPLATE_CHANGE_MODE_INVALID = 'Invalid change mode. Must be one of the following: noop, signal, script, restart'; // TemplateChangeModeInvalidError

// nomad/structs/structs.go Constraint.Validate (v1.9.7..main)
export function validateConstraint(c: CanonicalConstraint): string[] {
  const errs: string[] = [];
  if (c.Operand === '') errs.push('Missing constraint operand');
  let requireLTarget = true;
  switch (c.Operand) {
    case 'distinct_hosts':
      requireLTarget = false;
      break;
    case 'set_contains_all':
    case 'set_contains_any':
    case 'set_contains':
      if (c.RTarget === '') errs.push('Set contains constraint requires an RTarget');
      break;
    case 'regexp': {
      const e = goRegexpError(c.RTarget);
      if (e !== null) errs.push(`Regular expression failed to compile: ${e}`);
      break;
    }
    case 'version': {
      const e = versionConstraintError(c.RTarget);
      if (e !== null) errs.push(`Version constraint is invalid: ${e}`);
      break;
    }
    case 'semver': {
      const e = semverConstraintError(c.RTarget);
      if (e !== null) errs.push(`Semver constraint is invalid: ${e}`);
      break;
    }
    case 'distinct_property':
      if (c.RTarget !== '') {
        const parsed = parseUintGo(c.RTarget, 10, 64);
        if (typeof parsed === 'string') errs.push(`Failed to convert RTarget ${goQuote(c.RTarget)} to uint64: ${parsed}`);
        else if (parsed < 1n) errs.push(`Distinct Property must have an allowed count of 1 or greater: ${parsed} < 1`);
      }
      break;
    case 'is_set':
    case 'is_not_set':
      if (c.RTarget !== '') errs.push(`Operator ${goQuote(c.Operand)} does not support an RTarget`);
      break;
    case '=': case '==': case 'is': case '!=': case 'not': case '<': case '<=': case '>': case '>=':
      if (c.RTarget === '') errs.push(`Operator ${goQuote(c.Operand)} requires an RTarget`);
      break;
    default:
      errs.push(`Unknown constraint type ${goQuote(c.Operand)}`);
  }
  if (requireLTarget && c.LTarget === '') errs.push('No LTarget provided but is required by constraint');
  return errs;
}

/**
 * Go's strconv.ParseUint(s, base, bitSize) for base 8 or 10 without prefixes: the value, or the
 * error text ("strconv.ParseUint: parsing \"x\": invalid syntax" / "...: value out of range").
 * Like Go, a value that outgrows bitSize is a range error as soon as it does, before later digits are looked at.
 */
export function parseUintGo(s: string, base: 8 | 10, bitSize: number): bigint | string {
  const syntax = `strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`;
  const range = `strconv.ParseUint: parsing ${goQuote(s)}: value out of range`;
  if (s === '') return syntax;
  const max = (1n << BigInt(bitSize)) - 1n;
  let n = 0n;
  for (const ch of s) {
    let d: number;
    if (ch === '_') return syntax; // underscores are only allowed with base 0
    if (ch >= '0' && ch <= '9') d = ch.charCodeAt(0) - 48;
    else if (/[a-z]/i.test(ch)) d = ch.toLowerCase().charCodeAt(0) - 87;
    else return syntax;
    if (d >= base) return syntax;
    n = n * BigInt(base) + BigInt(d);
    if (n > max) return range;
  }
  return n;
}

// nomad/structs/structs.go RestartPolicy.Validate (v1.9.7..main)
export function validateRestartPolicy(r: CanonicalRestartPolicy): string[] {
  const errs: string[] = [];
  if (r.Mode !== 'delay' && r.Mode !== 'fail') errs.push(`Unsupported restart mode: ${goQuote(r.Mode)}`);
  if (r.Attempts === 0 && r.Mode !== 'fail') errs.push(`Restart policy ${goQuote(r.Mode)} with ${r.Attempts} attempts is ambiguous`);
  if (r.Interval < RESTART_POLICY_MIN_INTERVAL) {
    errs.push(`Interval can not be less than ${goDuration(RESTART_POLICY_MIN_INTERVAL)} (got ${goDuration(r.Interval)})`);
  }
  if (r.Attempts * r.Delay > r.Interval) {
    errs.push(`Nomad can't restart the TaskGroup ${r.Attempts} times in an interval of ${goDuration(r.Interval)} with a delay of ${goDuration(r.Delay)}`);
  }
  return errs;
}

// nomad/structs/structs.go ReschedulePolicy.viableAttempts (v1.9.7..main)
function viableAttempts(r: CanonicalReschedulePolicy): [boolean, number, number] {
  let possible = 0;
  let recommended = 0;
  let valid = true;
  switch (r.DelayFunction) {
    case 'constant':
      recommended = r.Attempts * r.Delay;
      if (r.Interval < recommended) {
        possible = Math.trunc(r.Interval / r.Delay);
        valid = false;
      }
      break;
    case 'exponential':
      for (let i = 0; i < r.Attempts; i++) {
        let next = 2 ** i * r.Delay;
        if (next > r.MaxDelay) {
          next = r.MaxDelay;
          recommended += next;
        } else {
          recommended = next;
        }
        if (recommended < r.Interval) possible++;
      }
      if (possible < r.Attempts) valid = false;
      break;
    case 'fibonacci': {
      const slots = [r.Delay, r.Delay];
      let ceiling = false;
      for (let i = 2; i < r.Attempts; i++) {
        let next: number;
        if (ceiling) next = slots[i - 1]! + r.MaxDelay;
        else {
          next = slots[i - 1]! + slots[i - 2]!;
          if (next > r.MaxDelay) {
            next = r.MaxDelay;
            ceiling = true;
          }
        }
        slots.push(next);
      }
      recommended = slots[slots.length - 1]!;
      if (r.Interval < recommended) {
        valid = false;
        for (let i = 0; i < slots.length; i++) {
          if (slots[i]! > r.Interval) {
            possible = i;
            break;
          }
        }
      }
      break;
    }
    default:
      return [false, 0, 0];
  }
  if (possible < 0) possible = 0;
  return [valid, possible, recommended];
}

// nomad/structs/structs.go ReschedulePolicy.Validate and validateDelayParams (v1.9.7..main)
export function validateReschedulePolicy(r: CanonicalReschedulePolicy): string[] {
  // ReschedulePolicy.Enabled: only a policy with attempts or unlimited is checked.
  if (!(r.Attempts > 0 || r.Unlimited)) return [];
  const errs: string[] = [];
  if (r.Attempts > 0) {
    if (r.Interval <= 0) errs.push('Interval must be a non zero value if Attempts > 0');
    if (r.Unlimited) {
      errs.push(`Reschedule Policy with Attempts = ${r.Attempts}, Interval = ${goDuration(r.Interval)}, and Unlimited = ${r.Unlimited} is ambiguous`);
      errs.push('If Attempts >0, Unlimited cannot also be set to true');
    }
  }
  let delayPreCheck = true;
  if (r.Delay < RESCHEDULE_POLICY_MIN_DELAY) {
    errs.push(`Delay cannot be less than ${goDuration(RESCHEDULE_POLICY_MIN_DELAY)} (got ${goDuration(r.Delay)})`);
    delayPreCheck = false;
  }
  if (!RESCHEDULE_DELAY_FUNCTIONS.includes(r.DelayFunction)) {
    errs.push(`Invalid delay function ${goQuote(r.DelayFunction)}, must be one of ${goQuoteList(RESCHEDULE_DELAY_FUNCTIONS)}`);
    delayPreCheck = false;
  }
  if (r.DelayFunction !== 'constant') {
    if (r.MaxDelay < RESCHEDULE_POLICY_MIN_DELAY) {
      // Nomad prints Delay, not MaxDelay, after "got" here.
      errs.push(`Max Delay cannot be less than ${goDuration(RESCHEDULE_POLICY_MIN_DELAY)} (got ${goDuration(r.Delay)})`);
      delayPreCheck = false;
    }
    if (r.MaxDelay < r.Delay) {
      errs.push(`Max Delay cannot be less than Delay ${goDuration(r.Delay)} (got ${goDuration(r.MaxDelay)})`);
      delayPreCheck = false;
    }
  }
  if (!r.Unlimited) {
    if (r.Interval < RESCHEDULE_POLICY_MIN_INTERVAL) {
      errs.push(`Interval cannot be less than ${goDuration(RESCHEDULE_POLICY_MIN_INTERVAL)} (got ${goDuration(r.Interval)})`);
    }
    if (!delayPreCheck) return errs;
    const [ok, possible, recommended] = viableAttempts(r);
    if (!ok) {
      if (r.DelayFunction === 'constant') {
        errs.push(`Nomad can only make ${possible} attempts in ${goDuration(r.Interval)} with initial delay ${goDuration(r.Delay)} and delay function ${goQuote(r.DelayFunction)}`);
      } else {
        errs.push(`Nomad can only make ${possible} attempts in ${goDuration(r.Interval)} with initial delay ${goDuration(r.Delay)}, delay function ${goQuote(r.DelayFunction)}, and delay ceiling ${goDuration(r.MaxDelay)}`);
      }
      errs.push(`Set the interval to at least ${goDuration(goDurationRound(recommended, SECOND))} to accommodate ${r.Attempts} attempts`);
    }
  }
  return errs;
}

// nomad/structs/structs.go EphemeralDisk.Validate (v1.9.7..main)
export function validateEphemeralDisk(d: CanonicalEphemeralDisk): string | null {
  return d.SizeMB < 10 ? `minimum DiskMB value is 10; got ${d.SizeMB}` : null;
}

// nomad/structs/structs.go LogConfig.Validate (v1.9.7..main)
export function validateLogConfig(l: CanonicalLogConfig, disk: CanonicalEphemeralDisk): string[] {
  const errs: string[] = [];
  if (l.MaxFiles < 1) errs.push(`minimum number of files is 1; got ${l.MaxFiles}`);
  if (l.MaxFileSizeMB < 1) errs.push(`minimum file size is 1MB; got ${l.MaxFileSizeMB}`);
  const usage = l.MaxFiles * l.MaxFileSizeMB;
  if (disk.SizeMB <= usage) errs.push(`log storage (${usage} MB) must be less than requested disk capacity (${disk.SizeMB} MB)`);
  return errs;
}

// nomad/structs/structs.go Resources.Validate and MeetsMinResources (v1.9.7..main). DiskMB, devices and
// NUMA are not ported (ApiResourcesToStructs does not copy DiskMB, so its check never fires over HTTP).
export function validateResources(r: CanonicalResources): string[] {
  const errs: string[] = [];
  if (r.Cores > 0 && r.CPU > 0) errs.push("Task can only ask for 'cpu' or 'cores' resource, not both.");
  const min: string[] = [];
  if (r.CPU < MIN_CPU && r.Cores === 0) min.push(`minimum CPU value is ${MIN_CPU}; got ${r.CPU}`);
  if (r.MemoryMB < MIN_MEMORY_MB) min.push(`minimum MemoryMB value is ${MIN_MEMORY_MB}; got ${r.MemoryMB}`);
  nest(errs, min); // mErr.Errors = append(mErr.Errors, MeetsMinResources()) keeps its multierror text
  if (r.MemoryMaxMB !== 0 && r.MemoryMaxMB !== MEMORY_NO_LIMIT && r.MemoryMaxMB < r.MemoryMB) {
    errs.push(`MemoryMaxMB value (${r.MemoryMaxMB}) should be larger than MemoryMB value (${r.MemoryMB})`);
  }
  if (r.SecretsMB > r.MemoryMB) errs.push(`SecretsMB value (${r.SecretsMB}) cannot be larger than MemoryMB value (${r.MemoryMB})`);
  if (r.SecretsMB < 0) errs.push(`SecretsMB value (${r.SecretsMB}) cannot be negative`);
  return errs;
}

/**
 * helper/escapingfs/escapes.go PathEscapesAllocViaRelative("task", dest): join under
 * /alloc-dir/alloc-id/task, clean, and see whether the path relative to /alloc-dir/alloc-id starts with "..".
 */
export function destinationEscapesAlloc(dest: string): boolean {
  const parts: string[] = ['alloc-dir', 'alloc-id', 'task'];
  for (const seg of dest.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  // filepath.Rel("/alloc-dir/alloc-id", abs)
  // "/.." stays "/" (filepath.Clean), hence the guarded pop above reaching an empty stack.
  if (parts[0] !== 'alloc-dir' || parts[1] !== 'alloc-id') return true; // above the alloc dir: rel is "../..."
  const rel = parts.slice(2).join('/') || '.';
  return rel.startsWith('..');
}

// nomad/structs/structs.go WaitConfig.Validate (v1.9.7..main)
function validateWait(w: CanonicalWaitConfig | null): string | null {
  if (w === null || w.Min === null || w.Max === null) return null;
  return w.Min > w.Max ? `wait min ${goDuration(w.Min)} is greater than max ${goDuration(w.Max)}` : null;
}

// nomad/structs/structs.go Template.Validate (v1.9.7..main)
export function validateTemplate(t: CanonicalTemplate): string[] {
  const errs: string[] = [];
  if (t.SourcePath === '' && t.EmbeddedTmpl === '') errs.push('Must specify a source path or have an embedded template');
  if (t.DestPath === '') errs.push('Must specify a destination for the template');
  if (destinationEscapesAlloc(t.DestPath)) errs.push('destination escapes allocation directory');
  switch (t.ChangeMode) {
    case 'noop':
    case 'restart':
      break;
    case 'signal':
      if (t.ChangeSignal === '') errs.push('Must specify signal value when change mode is signal');
      if (t.Envvars) errs.push('cannot use signals with env var templates');
      break;
    case 'script':
      if (t.ChangeScript === null) errs.push('must specify change script configuration value when change mode is script');
      // ChangeScript.Validate
      else if (t.ChangeScript.Command === '') errs.push('must specify script path value when change mode is script');
      break;
    default:
      errs.push(TEMPLATE_CHANGE_MODE_INVALID);
  }
  if (t.Splay < 0) errs.push('Must specify positive splay value');
  if (t.Perms !== '') {
    const parsed = parseUintGo(t.Perms, 8, 12);
    if (typeof parsed === 'string') errs.push(`Failed to parse ${goQuote(t.Perms)} as octal: ${parsed}`);
  }
  const w = validateWait(t.Wait);
  if (w !== null) errs.push(w);
  return errs;
}

// nomad/structs/structs.go Task.Validate (v1.9.7). Since v1.11.0 (and in v2.0.5) it also refuses a task
// named "alloc", right after the missing name: the name of the allocation's shared directory
// ("conflicts with and breaks task filesystem isolation features").
export function validateTask(t: CanonicalTask, jobType: string, tg: CanonicalTaskGroup, extras: GroupExtras, version: string = NOMAD_VERSION): string[] {
  const errs: string[] = [];
  if (t.Name === '') errs.push('Missing task name');
  if (t.Name === 'alloc' && nomadAtLeast(version, '1.11.0')) errs.push('Task cannot be named "alloc"');
  if (/[/\\]/.test(t.Name)) errs.push('Task name cannot include slashes');
  else if (t.Name.includes('\0')) errs.push('Task name cannot include null characters');
  if (t.Driver === '') errs.push('Missing task driver');
  if (t.KillTimeout < 0) errs.push('KillTimeout must be a positive value');
  else if (jobType === 'service' && extras.hasUpdate && extras.progressDeadline > 0 && t.KillTimeout > extras.progressDeadline) {
    // Nomad's own spelling: "KillTimout".
    errs.push(`KillTimout (${goDuration(t.KillTimeout)}) longer than the group's ProgressDeadline (${goDuration(extras.progressDeadline)})`);
  }
  if (t.ShutdownDelay < 0) errs.push('ShutdownDelay must be a positive value');
  nest(errs, validateResources(t.Resources));
  nest(errs, validateLogConfig(t.LogConfig, tg.EphemeralDisk));
  (t.Constraints ?? []).forEach((c, i) => {
    const ce = validateConstraint(c);
    if (ce.length > 0) errs.push(`Constraint ${i + 1} validation failed: ${formatList(ce)}`);
    if (c.Operand === 'distinct_hosts' || c.Operand === 'distinct_property') {
      errs.push(`Constraint ${i + 1} has disallowed Operand at task level: ${c.Operand}`);
    }
  });
  const destinations = new Map<string, number>();
  (t.Templates ?? []).forEach((tmpl, i) => {
    const te = validateTemplate(tmpl);
    if (te.length > 0) errs.push(`Template ${i + 1} validation failed: ${formatList(te)}`);
    const other = destinations.get(tmpl.DestPath);
    if (other !== undefined) errs.push(`Template ${i + 1} has same destination as ${other}`);
    else destinations.set(tmpl.DestPath, i + 1);
  });
  return errs;
}

// nomad/structs/structs.go TaskGroup.Validate (v1.9.7). Uses multierror.Append, so the restart and
// reschedule policies' errors are flattened into the group's list.
export function validateTaskGroup(tg: CanonicalTaskGroup, job: CanonicalJob, extras: GroupExtras, version: string = NOMAD_VERSION): string[] {
  const errs: string[] = [];
  if (tg.Name === '') errs.push('Missing task group name');
  else if (tg.Name.includes('\0')) errs.push('Task group name contains null character');
  if (tg.Count < 0) errs.push("Task group count can't be negative");
  if (tg.Tasks.length === 0) errs.push('Missing tasks for task group');
  if (tg.MaxClientDisconnect !== null && tg.StopAfterClientDisconnect !== null) {
    errs.push('Task group cannot be configured with both max_client_disconnect and stop_after_client_disconnect');
  }
  if (tg.MaxClientDisconnect !== null && tg.MaxClientDisconnect < 0) errs.push('max_client_disconnect cannot be negative');
  (tg.Constraints ?? []).forEach((c, i) => {
    const ce = validateConstraint(c);
    if (ce.length > 0) errs.push(`Constraint ${i + 1} validation failed: ${formatList(ce)}`);
  });
  flatten(errs, validateRestartPolicy(tg.RestartPolicy));
  if (nomadAtLeast(version, '1.11.0')) {
    // Since v1.11.0 (and in v2.0.5) sysbatch groups are checked as system ones, in new words; their
    // canonical policy is nil unless the job gives one (api/tasks.go TaskGroup.Canonicalize, canonicalize.ts).
    if (job.Type === 'system' || job.Type === 'sysbatch') {
      if (tg.ReschedulePolicy !== null) errs.push('System or sysbatch jobs should not have a reschedule policy');
    } else if (tg.ReschedulePolicy !== null) {
      flatten(errs, validateReschedulePolicy(tg.ReschedulePolicy));
    } else {
      errs.push(`Task Group ${tg.Name} should have a reschedule policy`);
    }
  } else if (job.Type === 'system') {
    if (tg.ReschedulePolicy !== null) errs.push('System jobs should not have a reschedule policy');
  } else if (tg.ReschedulePolicy !== null) {
    flatten(errs, validateReschedulePolicy(tg.ReschedulePolicy));
  } else {
    errs.push(`Task Group ${tg.Name} should have a reschedule policy`);
  }
  const de = validateEphemeralDisk(tg.EphemeralDisk);
  if (de !== null) errs.push(de);
  if (extras.hasUpdate && job.Type !== 'service' && job.Type !== 'system') {
    errs.push(`Job type ${goQuote(job.Type)} does not allow update block`);
  }
  if (extras.hasMigrate && job.Type !== 'service') errs.push(`Job type ${goQuote(job.Type)} does not allow migrate block`);
  const names = new Map<string, number>();
  let leaders = 0;
  tg.Tasks.forEach((t, i) => {
    if (t.Name === '') errs.push(`Task ${i + 1} missing name`);
    else if (names.has(t.Name)) errs.push(`Task ${i + 1} redefines '${t.Name}' from task ${names.get(t.Name)! + 1}`);
    else names.set(t.Name, i);
    if (t.Leader) leaders++;
  });
  if (leaders > 1) errs.push('Only one task may be marked as leader');
  for (const t of tg.Tasks) {
    const te = validateTask(t, job.Type, tg, extras, version);
    if (te.length > 0) errs.push(`Task ${t.Name} validation failed: ${formatList(te)}`);
  }
  return errs;
}

// nomad/structs/structs.go Job.Validate (v1.9.7). v1.10.5 dropped the stop_after_client_disconnect and
// max_client_disconnect/prevent_reschedule_on_lost checks from here (they moved into Disconnect).
export function validateJobStruct(job: CanonicalJob, extras: GroupExtras[], version: string = NOMAD_VERSION): string[] {
  const errs: string[] = [];
  if (job.Region === '') errs.push('Missing job region');
  if (job.ID === '') errs.push('Missing job ID');
  else if (job.ID.includes(' ')) errs.push('Job ID contains a space');
  else if (job.ID.includes('\0')) errs.push('Job ID contains a null character');
  if (job.Name === '') errs.push('Missing job name');
  else if (job.Name.includes('\0')) errs.push('Job Name contains a null character');
  if (job.Namespace === '') errs.push('Job must be in a namespace');
  switch (job.Type) {
    case '_core': case 'service': case 'batch': case 'system': case 'sysbatch':
      break;
    case '':
      errs.push('Missing job type');
      break;
    default:
      errs.push(`Invalid job type: ${goQuote(job.Type)}`);
  }
  if (job.Datacenters.length === 0) errs.push('Missing job datacenters');
  else for (const dc of job.Datacenters) if (dc === '') errs.push('Job datacenter must be non-empty string');
  if (job.TaskGroups.length === 0) errs.push('Missing job task groups');
  (job.Constraints ?? []).forEach((c, i) => {
    const ce = validateConstraint(c);
    if (ce.length > 0) errs.push(`Constraint ${i + 1} validation failed: ${formatList(ce)}`);
  });
  const seen = new Map<string, number>();
  job.TaskGroups.forEach((tg, i) => {
    if (tg.Name === '') errs.push(`Job task group ${i + 1} missing name`);
    else if (seen.has(tg.Name)) errs.push(`Job task group ${i + 1} redefines '${tg.Name}' from group ${seen.get(tg.Name)! + 1}`);
    else seen.set(tg.Name, i);
    if (tg.ShutdownDelay !== null && tg.ShutdownDelay < 0) errs.push('ShutdownDelay must be a positive value');
    if (tg.StopAfterClientDisconnect !== null && tg.StopAfterClientDisconnect !== 0) {
      if (tg.StopAfterClientDisconnect > 0 && !(job.Type === 'batch' || job.Type === 'service')) {
        errs.push('stop_after_client_disconnect can only be set in batch and service jobs');
      } else if (tg.StopAfterClientDisconnect < 0) {
        errs.push('stop_after_client_disconnect must be a positive value');
      }
    }
    if (job.Type === 'system' && tg.Count > 1) {
      errs.push(`Job task group ${tg.Name} has count ${tg.Count}. Count cannot exceed 1 with system scheduler`);
    }
    if (tg.MaxClientDisconnect !== null && tg.ReschedulePolicy !== null && tg.ReschedulePolicy.Attempts > 0 && tg.PreventRescheduleOnLost) {
      errs.push('max_client_disconnect and prevent_reschedule_on_lost cannot be enabled when rechedule.attempts > 0');
    }
  });
  job.TaskGroups.forEach((tg, i) => {
    const ge = validateTaskGroup(tg, job, extras[i]!, version);
    if (ge.length > 0) errs.push(`Task group ${tg.Name} validation failed: ${formatList(ge)}`);
  });
  return errs;
}

/**
 * nomad/job_endpoint_hooks.go jobValidate.Validate (v1.9.7..main): Job.Validate's errors (flattened),
 * then the core type and the priority range against the server's JobMaxPriority (100 by default).
 */
export function jobValidate(job: CanonicalJob, extras: GroupExtras[], version: string = NOMAD_VERSION): string[] {
  const errs = validateJobStruct(job, extras, version);
  if (job.Type === '_core') errs.push('job type cannot be core');
  if (job.Priority < JOB_MIN_PRIORITY || job.Priority > JOB_MAX_PRIORITY) {
    errs.push(`job priority must be between [${JOB_MIN_PRIORITY}, ${JOB_MAX_PRIORITY}]`);
  }
  return errs;
}

/** nomad/job_endpoint_hooks.go memoryOversubscriptionValidate.Validate, with oversubscription off (the default scheduler configuration). */
export function memoryOversubscriptionWarnings(job: CanonicalJob): string[] {
  const out: string[] = [];
  for (const tg of job.TaskGroups) {
    for (const t of tg.Tasks) {
      if (t.Resources.MemoryMaxMB !== 0) {
        out.push(`Memory oversubscription is not enabled; Task "${tg.Name}.${t.Name}" memory_max value will be ignored. Update the Scheduler Configuration to allow oversubscription.`);
      }
    }
  }
  return out;
}
