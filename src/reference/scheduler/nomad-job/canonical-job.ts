/**
 * The job Nomad stores after PUT /v1/jobs (structs.Job as it comes out of ApiJobToStructJob and the
 * jobCanonicalizer/jobNodePoolMutatingHook admission mutators), with Nomad's JSON field names.
 * Durations are nanoseconds, as in Nomad's JSON. Only the fields the reference ports are here.
 */

export interface CanonicalConstraint { LTarget: string; RTarget: string; Operand: string }

export interface CanonicalRestartPolicy { Attempts: number; Interval: number; Delay: number; Mode: string; RenderTemplates: boolean }

export interface CanonicalReschedulePolicy {
  Attempts: number; Interval: number; Delay: number; DelayFunction: string; MaxDelay: number; Unlimited: boolean;
}

export interface CanonicalEphemeralDisk { SizeMB: number; Sticky: boolean; Migrate: boolean }

export interface CanonicalChangeScript { Command: string; Args: string[] | null; Timeout: number; FailOnError: boolean }

export interface CanonicalWaitConfig { Min: number | null; Max: number | null }

export interface CanonicalTemplate {
  SourcePath: string; DestPath: string; EmbeddedTmpl: string; ChangeMode: string; ChangeSignal: string;
  ChangeScript: CanonicalChangeScript | null; Splay: number; Perms: string; Uid: number | null; Gid: number | null;
  LeftDelim: string; RightDelim: string; Envvars: boolean; VaultGrace: number; Wait: CanonicalWaitConfig | null;
  ErrMissingKey: boolean;
}

export interface CanonicalLogConfig { MaxFiles: number; MaxFileSizeMB: number; Disabled: boolean }

export interface CanonicalResources { CPU: number; MemoryMB: number; MemoryMaxMB: number; Cores: number; SecretsMB: number }

export interface CanonicalTask {
  Name: string; Driver: string; User: string; Config: Record<string, unknown> | null; Env: Record<string, string> | null;
  Meta: Record<string, string> | null; Constraints: CanonicalConstraint[] | null; Templates: CanonicalTemplate[] | null;
  LogConfig: CanonicalLogConfig; Resources: CanonicalResources; RestartPolicy: CanonicalRestartPolicy;
  KillTimeout: number; KillSignal: string; ShutdownDelay: number; Leader: boolean; Kind: string;
}

export interface CanonicalTaskGroup {
  Name: string; Count: number; Constraints: CanonicalConstraint[] | null; RestartPolicy: CanonicalRestartPolicy;
  /** null for system and sysbatch-less-than... see canonicalize.ts: Nomad sets none for system jobs. */
  ReschedulePolicy: CanonicalReschedulePolicy | null; EphemeralDisk: CanonicalEphemeralDisk; Meta: Record<string, string> | null;
  ShutdownDelay: number | null; StopAfterClientDisconnect: number | null; MaxClientDisconnect: number | null;
  PreventRescheduleOnLost: boolean; Tasks: CanonicalTask[];
}

export interface CanonicalJob {
  ID: string; Name: string; Namespace: string; Region: string; Type: string; Priority: number; AllAtOnce: boolean;
  Stop: boolean; Datacenters: string[]; NodePool: string; Meta: Record<string, string> | null;
  Constraints: CanonicalConstraint[] | null; TaskGroups: CanonicalTaskGroup[];
}

/** What validation needs to know about blocks the reference does not carry into CanonicalJob. */
export interface GroupExtras { hasUpdate: boolean; hasMigrate: boolean; progressDeadline: number }
