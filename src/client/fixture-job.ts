/**
 * The one job shape stackproof registers on a scheduler (Nomad's job API, PUT /v1/jobs): a batch job
 * whose tasks write known files under local/ through template blocks and known bytes to stdout and
 * stderr, optionally keep appending a line to a file and to stdout on a schedule, and may have
 * logging disabled. An "event" job carries a constraint no node satisfies, so it is registered and
 * evaluated but never placed: it produces Job and Evaluation events and nothing else.
 *
 * It is built to pass Nomad's own job validation (nomad/structs/structs.go Job.Validate and what it
 * calls, read at v1.9.7, v1.10.5, v1.11.0 and main): the logs it keeps fit strictly inside its
 * ephemeral disk (LogConfig.Validate), and every template carries data (Template.Validate). The
 * embedded reference knows nothing of this file: it validates and runs the job as Nomad would.
 */

/** What a task of a fixture job does. */
export interface FixtureTask {
  name: string;
  /** Files under the task's local/ directory, by relative path (written by template blocks). */
  files?: Record<string, string>;
  /** Bytes the task writes to stdout, then to stderr, when it starts. */
  stdout?: string;
  stderr?: string;
  /** `logs { disabled = true }`: the task has no log files. */
  logsDisabled?: boolean;
  /**
   * After the start: `count` times, every `everyMs`, append "tick <n>\n" to local/<file> and to
   * stdout. Right after tick `truncateAt` the file is truncated to nothing; right after tick
   * `deleteAt` it is deleted and the ticks stop (what FileEvent reports to a stream). With
   * `awaitSignal`, the task creates the file empty and starts ticking only when it receives
   * TICKS_SIGNAL (SchedulerFixtures.startTicks), so that a rule times the change, not the placement.
   */
  ticks?: { count: number; everyMs: number; file: string; truncateAt?: number; deleteAt?: number; awaitSignal?: boolean };
  /** How long the task stays alive after its ticks (0: it exits, and the allocation completes). */
  holdMs?: number;
}

export interface FixtureJobSpec {
  id: string;
  namespace: string;
  /** allocation: placed on a node; event: never placed (a constraint no node meets). */
  kind: 'allocation' | 'event';
  tasks: FixtureTask[];
  meta?: Record<string, string>;
}

/** Template delimiters no fixture content contains, so the template engine copies it byte for byte. */
export const TEMPLATE_DELIMS = { left: '[[stackproof-never[[', right: ']]stackproof-never]]' } as const;

/** The node meta key the event jobs' constraint needs; no node has it. */
export const UNPLACEABLE_META = 'stackproof_unplaceable';

/** Where stdout and stderr bytes are rendered: the secrets directory, which the fs API does not serve. */
const LOG_SOURCES = { stdout: 'stdout.txt', stderr: 'stderr.txt' } as const;

/**
 * Kept logs: 2 files of 10 MB per stream, 20 MB in all, which Nomad requires to be strictly less than
 * the group's ephemeral disk (LogConfig.Validate: "log storage (20 MB) must be less than requested
 * disk capacity (20 MB)"). 64 MB of disk leaves room for the task's own files.
 */
const LOGS = { MaxFiles: 2, MaxFileSizeMB: 10 } as const;
const DISK_MB = 64;

/** What starts the ticks of a task that awaits a signal: raw_exec sends it to the task's process, the shell. */
export const TICKS_SIGNAL = 'SIGUSR1';

/**
 * Every fixture task runs this script (raw_exec, /bin/sh -c). Its parameters come from the task's
 * environment, so the script text never varies. A stream with no bytes has no template (Nomad
 * refuses a template without data), so the script reads a source only when it is there and writes
 * nothing to stderr of its own.
 */
export const FIXTURE_TASK_SCRIPT = [
  `if [ -f "$NOMAD_SECRETS_DIR/${LOG_SOURCES.stdout}" ]; then cat "$NOMAD_SECRETS_DIR/${LOG_SOURCES.stdout}"; fi`,
  `if [ -f "$NOMAD_SECRETS_DIR/${LOG_SOURCES.stderr}" ]; then cat "$NOMAD_SECRETS_DIR/${LOG_SOURCES.stderr}" >&2; fi`,
  // The trap is set before the file exists, so a signal sent once the file is seen is never the default (fatal) action.
  `if [ "$SP_AWAIT_SIGNAL" = 1 ]; then go=; trap 'go=1' USR1; : > "$NOMAD_TASK_DIR/$SP_TICK_FILE"; while [ -z "$go" ]; do sleep 0.2; done; fi`,
  'i=0',
  'while [ "$i" -lt "$SP_TICKS" ]; do i=$((i+1)); sleep "$SP_TICK_SECONDS"; echo "tick $i" >> "$NOMAD_TASK_DIR/$SP_TICK_FILE"; echo "tick $i"; if [ "$i" = "$SP_TRUNCATE_AT" ]; then : > "$NOMAD_TASK_DIR/$SP_TICK_FILE"; fi; if [ "$i" = "$SP_DELETE_AT" ]; then rm -f "$NOMAD_TASK_DIR/$SP_TICK_FILE"; break; fi; done',
  'sleep "$SP_HOLD_SECONDS"',
].join('; ');

const seconds = (ms: number) => String(Math.round(ms) / 1000);

/** The Nomad API job (JSON, api.Job field names) for a fixture spec. */
export function buildFixtureJob(spec: FixtureJobSpec): Record<string, unknown> & { ID: string } {
  for (const t of spec.tasks) {
    for (const [path, content] of Object.entries(t.files ?? {})) {
      // Nomad refuses a template with neither a source nor data (Template.Validate).
      if (content === '') throw new Error(`fixture task ${t.name}: file local/${path} is empty, and a template must carry data`);
    }
  }
  return {
    ID: spec.id,
    Name: spec.id,
    Namespace: spec.namespace,
    Type: 'batch',
    Datacenters: ['*'],
    Meta: { ...spec.meta, stackproof: spec.kind },
    ...(spec.kind === 'event' ? { Constraints: [{ LTarget: `\${meta.${UNPLACEABLE_META}}`, RTarget: 'never', Operand: '=' }] } : {}),
    TaskGroups: [
      {
        Name: 'fixture',
        Count: 1,
        RestartPolicy: { Attempts: 0, Mode: 'fail' },
        ReschedulePolicy: { Attempts: 0, Unlimited: false },
        EphemeralDisk: { SizeMB: DISK_MB },
        Tasks: spec.tasks.map((t) => ({
          Name: t.name,
          Driver: 'raw_exec',
          Config: { command: '/bin/sh', args: ['-c', FIXTURE_TASK_SCRIPT] },
          Env: {
            SP_TICKS: String(t.ticks?.count ?? 0),
            SP_TICK_SECONDS: seconds(t.ticks?.everyMs ?? 1000),
            SP_TICK_FILE: t.ticks?.file ?? 'ticks.txt',
            SP_TRUNCATE_AT: String(t.ticks?.truncateAt ?? 0),
            SP_DELETE_AT: String(t.ticks?.deleteAt ?? 0),
            SP_AWAIT_SIGNAL: t.ticks?.awaitSignal ? '1' : '0',
            SP_HOLD_SECONDS: seconds(t.holdMs ?? 0),
          },
          Templates: [
            ...Object.entries(t.files ?? {}).map(([path, content]) => template(`local/${path}`, content)),
            ...(t.stdout ? [template(`secrets/${LOG_SOURCES.stdout}`, t.stdout)] : []),
            ...(t.stderr ? [template(`secrets/${LOG_SOURCES.stderr}`, t.stderr)] : []),
          ],
          LogConfig: { ...LOGS, Disabled: t.logsDisabled === true },
          Resources: { CPU: 20, MemoryMB: 32 },
        })),
      },
    ],
  };
}

function template(dest: string, content: string) {
  return { EmbeddedTmpl: content, DestPath: dest, ChangeMode: 'noop', Perms: '0644', LeftDelim: TEMPLATE_DELIMS.left, RightDelim: TEMPLATE_DELIMS.right };
}
