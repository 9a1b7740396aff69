/**
 * The request body of PUT /v1/jobs as Nomad's agent decodes it: api.JobRegisterRequest
 * (api/jobs.go, v1.9.7..main) with its Job (api.Job), read by command/agent/http.go decodeBody,
 * which is Go's encoding/json Decoder.Decode into the struct.
 *
 * What that decoder does, re-implemented here over an already parsed JSON value:
 *  - object keys match struct fields by exact name, else case-insensitively; unknown keys are ignored;
 *  - null leaves a field unset (pointer fields stay nil);
 *  - a value of the wrong JSON type is an *json.UnmarshalTypeError; decoding goes on and the FIRST
 *    such error is returned. Its text (Go 1.24..1.26 encoding/json decode.go UnmarshalTypeError.Error
 *    and addErrorContext): "json: cannot unmarshal <string|number|number 1.5|bool|object|array> into
 *    Go struct field <innermost struct type name>.<field path from the root, dotted> of type <Go type>",
 *    or "... into Go value of type api.JobRegisterRequest" for the body itself.
 * jobUpdate (command/agent/job_endpoint.go) answers that with CodedError(400, err.Error()).
 *
 * Only the fields the reference ports are described; the others are decoded as interface{} (any
 * JSON accepted, value dropped), so a wrong type inside them is not refused as Nomad would.
 */

export type GoType =
  | { k: 'string' }
  | { k: 'bool' }
  | { k: 'int'; go: 'int' | 'int64' | 'uint64' | 'time.Duration' }
  | { k: 'any' }
  | { k: 'slice'; of: GoType }
  | { k: 'map'; of: GoType }
  | { k: 'struct'; go: string; name: string; fields: Record<string, GoType> };

const str: GoType = { k: 'string' };
const bool: GoType = { k: 'bool' };
const int: GoType = { k: 'int', go: 'int' };
const int64: GoType = { k: 'int', go: 'int64' };
const uint64: GoType = { k: 'int', go: 'uint64' };
const duration: GoType = { k: 'int', go: 'time.Duration' };
const any: GoType = { k: 'any' };
const slice = (of: GoType): GoType => ({ k: 'slice', of });
const map = (of: GoType): GoType => ({ k: 'map', of });
const struct = (name: string, fields: Record<string, GoType>): GoType => ({ k: 'struct', go: `api.${name}`, name, fields });

function goTypeName(t: GoType): string {
  switch (t.k) {
    case 'string': return 'string';
    case 'bool': return 'bool';
    case 'int': return t.go;
    case 'any': return 'interface {}';
    case 'slice': return `[]${t.of.k === 'struct' ? '*' : ''}${goTypeName(t.of)}`;
    case 'map': return `map[string]${goTypeName(t.of)}`;
    case 'struct': return t.go;
  }
}

// api/constraint.go Constraint
const Constraint = struct('Constraint', { LTarget: str, RTarget: str, Operand: str });
// api/tasks.go RestartPolicy
const RestartPolicy = struct('RestartPolicy', { Interval: duration, Attempts: int, Delay: duration, Mode: str, RenderTemplates: bool });
// api/tasks.go ReschedulePolicy
const ReschedulePolicy = struct('ReschedulePolicy', { Attempts: int, Interval: duration, Delay: duration, DelayFunction: str, MaxDelay: duration, Unlimited: bool });
// api/tasks.go EphemeralDisk
const EphemeralDisk = struct('EphemeralDisk', { Sticky: bool, Migrate: bool, SizeMB: int });
// api/resources.go Resources
const Resources = struct('Resources', {
  CPU: int, Cores: int, MemoryMB: int, MemoryMaxMB: int, DiskMB: int, SecretsMB: int, IOPS: int,
  Networks: any, Devices: any, NUMA: any,
});
// api/tasks.go LogConfig
const LogConfig = struct('LogConfig', { MaxFiles: int, MaxFileSizeMB: int, Enabled: bool, Disabled: bool });
// api/tasks.go ChangeScript, WaitConfig, Template
const ChangeScript = struct('ChangeScript', { Command: str, Args: slice(str), Timeout: duration, FailOnError: bool });
const WaitConfig = struct('WaitConfig', { Min: duration, Max: duration });
const Template = struct('Template', {
  SourcePath: str, DestPath: str, EmbeddedTmpl: str, ChangeMode: str, ChangeScript, ChangeSignal: str,
  Splay: duration, Perms: str, Uid: int, Gid: int, LeftDelim: str, RightDelim: str, Envvars: bool,
  VaultGrace: duration, Wait: WaitConfig, ErrMissingKey: bool,
});
// api/tasks.go Task
const Task = struct('Task', {
  Name: str, Driver: str, User: str, Lifecycle: any, Config: map(any), Constraints: slice(Constraint), Affinities: any,
  Env: map(str), Services: any, Resources, RestartPolicy, Meta: map(str), KillTimeout: duration, LogConfig,
  Artifacts: any, Vault: any, Consul: any, Templates: slice(Template), DispatchPayload: any, VolumeMounts: any,
  CSIPluginConfig: any, Leader: bool, ShutdownDelay: duration, KillSignal: str, Kind: str, ScalingPolicies: any,
  Identity: any, Identities: any, Actions: any, Schedule: any,
});
// api/tasks.go TaskGroup
const TaskGroup = struct('TaskGroup', {
  Name: str, Count: int, Constraints: slice(Constraint), Affinities: any, Tasks: slice(Task), Spreads: any,
  Volumes: any, RestartPolicy, Disconnect: any, ReschedulePolicy, EphemeralDisk, Update: any, Migrate: any,
  Networks: any, Meta: map(str), Services: any, ShutdownDelay: duration, StopAfterClientDisconnect: duration,
  MaxClientDisconnect: duration, Scaling: any, Consul: any, PreventRescheduleOnLost: bool,
});
// api/jobs.go Job
const Job = struct('Job', {
  Region: str, Namespace: str, ID: str, Name: str, Type: str, Priority: int, AllAtOnce: bool,
  Datacenters: slice(str), NodePool: str, Constraints: slice(Constraint), Affinities: any, TaskGroups: slice(TaskGroup),
  Update: any, Multiregion: any, Spreads: any, Periodic: any, ParameterizedJob: any, Reschedule: ReschedulePolicy,
  Migrate: any, Meta: map(str), ConsulToken: str, VaultToken: str, UI: any,
  Stop: bool, ParentID: str, Dispatched: bool, DispatchIdempotencyToken: str, Payload: any, ConsulNamespace: str,
  VaultNamespace: str, NomadTokenID: str, Status: str, StatusDescription: str, Stable: bool, Version: uint64,
  SubmitTime: int64, CreateIndex: uint64, ModifyIndex: uint64, JobModifyIndex: uint64, VersionTag: any,
});
// api/jobs.go JobRegisterRequest (WriteRequest embedded: Region, Namespace, SecretID promoted)
const JobRegisterRequest = struct('JobRegisterRequest', {
  Submission: any, Job, EnforceIndex: bool, JobModifyIndex: uint64, PolicyOverride: bool, PreserveCounts: bool,
  PreserveResources: bool, EvalPriority: int, Region: str, Namespace: str, SecretID: str,
});

// ---- decoded shapes: every field optional (absent or null = Go's nil / zero) ----

export interface ApiConstraint { LTarget?: string; RTarget?: string; Operand?: string }
export interface ApiRestartPolicy { Interval?: number; Attempts?: number; Delay?: number; Mode?: string; RenderTemplates?: boolean }
export interface ApiReschedulePolicy { Attempts?: number; Interval?: number; Delay?: number; DelayFunction?: string; MaxDelay?: number; Unlimited?: boolean }
export interface ApiEphemeralDisk { Sticky?: boolean; Migrate?: boolean; SizeMB?: number }
export interface ApiResources { CPU?: number; Cores?: number; MemoryMB?: number; MemoryMaxMB?: number; DiskMB?: number; SecretsMB?: number; IOPS?: number }
export interface ApiLogConfig { MaxFiles?: number; MaxFileSizeMB?: number; Enabled?: boolean; Disabled?: boolean }
export interface ApiChangeScript { Command?: string; Args?: string[]; Timeout?: number; FailOnError?: boolean }
export interface ApiWaitConfig { Min?: number; Max?: number }
export interface ApiTemplate {
  SourcePath?: string; DestPath?: string; EmbeddedTmpl?: string; ChangeMode?: string; ChangeScript?: ApiChangeScript;
  ChangeSignal?: string; Splay?: number; Perms?: string; Uid?: number; Gid?: number; LeftDelim?: string; RightDelim?: string;
  Envvars?: boolean; VaultGrace?: number; Wait?: ApiWaitConfig; ErrMissingKey?: boolean;
}
export interface ApiTask {
  Name?: string; Driver?: string; User?: string; Config?: Record<string, unknown>; Constraints?: (ApiConstraint | undefined)[];
  Env?: Record<string, string>; Resources?: ApiResources; RestartPolicy?: ApiRestartPolicy; Meta?: Record<string, string>;
  KillTimeout?: number; LogConfig?: ApiLogConfig; Templates?: (ApiTemplate | undefined)[]; Leader?: boolean;
  ShutdownDelay?: number; KillSignal?: string; Kind?: string;
}
export interface ApiTaskGroup {
  Name?: string; Count?: number; Constraints?: (ApiConstraint | undefined)[]; Tasks?: (ApiTask | undefined)[];
  RestartPolicy?: ApiRestartPolicy; ReschedulePolicy?: ApiReschedulePolicy; EphemeralDisk?: ApiEphemeralDisk;
  Update?: unknown; Migrate?: unknown; Scaling?: unknown; Meta?: Record<string, string>; ShutdownDelay?: number;
  StopAfterClientDisconnect?: number; MaxClientDisconnect?: number; PreventRescheduleOnLost?: boolean;
}
export interface ApiJob {
  Region?: string; Namespace?: string; ID?: string; Name?: string; Type?: string; Priority?: number; AllAtOnce?: boolean;
  Datacenters?: string[]; NodePool?: string; Constraints?: (ApiConstraint | undefined)[]; TaskGroups?: (ApiTaskGroup | undefined)[];
  Update?: unknown; Reschedule?: ApiReschedulePolicy; Meta?: Record<string, string>; Stop?: boolean;
}
export interface ApiJobRegisterRequest {
  Job?: ApiJob; EvalPriority?: number; Region?: string; Namespace?: string;
}

type Ctx = { struct: string; path: string[] };

class TypeError_ {
  constructor(readonly message: string) {}
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  return 'string';
}

const RANGE: Record<string, [number, number]> = {
  int: [-(2 ** 63), 2 ** 63 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
  'time.Duration': [-(2 ** 63), 2 ** 63 - 1],
  uint64: [0, 2 ** 64 - 1],
};

/** Decodes `v` as Go type `t`; records the first type error in `errs` and keeps going, as Go's decoder does. */
function decode(v: unknown, t: GoType, ctx: Ctx, errs: TypeError_[]): unknown {
  if (v === null || v === undefined) return undefined;
  const fail = (value: string): undefined => {
    const where = ctx.struct !== '' || ctx.path.length > 0
      ? `Go struct field ${ctx.struct}.${ctx.path.join('.')}`
      : 'Go value';
    errs.push(new TypeError_(`json: cannot unmarshal ${value} into ${where} of type ${goTypeName(t)}`));
    return undefined;
  };
  switch (t.k) {
    case 'any':
      return v;
    case 'string':
      return typeof v === 'string' ? v : fail(jsonKind(v));
    case 'bool':
      return typeof v === 'boolean' ? v : fail(jsonKind(v));
    case 'int': {
      if (typeof v !== 'number') return fail(jsonKind(v));
      const [lo, hi] = RANGE[t.go]!;
      if (!Number.isInteger(v) || v < lo || v > hi) return fail(`number ${String(v)}`);
      return v;
    }
    case 'slice': {
      if (!Array.isArray(v)) return fail(jsonKind(v));
      return v.map((e) => decode(e, t.of, ctx, errs));
    }
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return fail(jsonKind(v));
      const out: Record<string, unknown> = {};
      for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
        const d = decode(e, t.of, ctx, errs);
        // Go stores the zero value for a null map entry ("" for map[string]string, nil for interface{}).
        out[k] = d === undefined ? (t.of.k === 'string' ? '' : null) : d;
      }
      return out;
    }
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) return fail(jsonKind(v));
      const out: Record<string, unknown> = {};
      const names = Object.keys(t.fields);
      for (const [key, e] of Object.entries(v as Record<string, unknown>)) {
        const name = names.find((n) => n === key) ?? names.find((n) => n.toLowerCase() === key.toLowerCase());
        if (name === undefined) continue;
        const d = decode(e, t.fields[name]!, { struct: t.name, path: [...ctx.path, name] }, errs);
        if (d !== undefined) out[name] = d;
        else if (e === null) delete out[name];
      }
      return out;
    }
  }
}

/** Go's encoding/json into any struct described here (another endpoint's request): the first type error's text, or the value. */
export function decodeGoValue(body: unknown, type: GoType): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  const errs: TypeError_[] = [];
  const value = decode(body, type, { struct: '', path: [] }, errs);
  if (errs.length > 0) return { ok: false, message: errs[0]!.message };
  return { ok: true, value: (value ?? {}) as Record<string, unknown> };
}

/** decodeBody (command/agent/http.go) into api.JobRegisterRequest; the first type error's text, or the request. */
export function decodeJobRegisterRequest(body: unknown): { ok: true; request: ApiJobRegisterRequest } | { ok: false; message: string } {
  const errs: TypeError_[] = [];
  const request = decode(body, JobRegisterRequest, { struct: '', path: [] }, errs);
  if (errs.length > 0) return { ok: false, message: errs[0]!.message };
  return { ok: true, request: (request ?? {}) as ApiJobRegisterRequest };
}
