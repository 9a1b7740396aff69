import { z } from 'zod';

/**
 * The one job shape stackproof registers on a scheduler (Nomad's job API, PUT /v1/jobs): a batch job
 * whose tasks write known files under local/ through template blocks and known bytes to stdout and
 * stderr, optionally keep appending a line to a file and to stdout on a schedule, and may have
 * logging disabled. An "event" job carries a constraint no node satisfies, so it is registered and
 * evaluated but never placed: it produces Job and Evaluation events and nothing else.
 *
 * The provisioner builds it (buildFixtureJob); the reference's hashicorp dialect accepts exactly it
 * (parseFixtureJob) and plays what the shell script would do. Both read the same wire format here.
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
   * `deleteAt` it is deleted and the ticks stop (what FileEvent reports to a stream).
   */
  ticks?: { count: number; everyMs: number; file: string; truncateAt?: number; deleteAt?: number };
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
const LOG_SOURCES = { stdout: 'secrets/stdout.txt', stderr: 'secrets/stderr.txt' } as const;

/**
 * Every fixture task runs this script (raw_exec, /bin/sh -c). Its parameters come from the task's
 * environment, so the script text never varies and the reference can recognise it exactly.
 */
export const FIXTURE_TASK_SCRIPT = [
  'cat "$NOMAD_SECRETS_DIR/stdout.txt"',
  'cat "$NOMAD_SECRETS_DIR/stderr.txt" >&2',
  'i=0',
  'while [ "$i" -lt "$SP_TICKS" ]; do i=$((i+1)); sleep "$SP_TICK_SECONDS"; echo "tick $i" >> "$NOMAD_TASK_DIR/$SP_TICK_FILE"; echo "tick $i"; if [ "$i" = "$SP_TRUNCATE_AT" ]; then : > "$NOMAD_TASK_DIR/$SP_TICK_FILE"; fi; if [ "$i" = "$SP_DELETE_AT" ]; then rm -f "$NOMAD_TASK_DIR/$SP_TICK_FILE"; break; fi; done',
  'sleep "$SP_HOLD_SECONDS"',
].join('; ');

const seconds = (ms: number) => String(Math.round(ms) / 1000);

/** The Nomad API job (JSON, api.Job field names) for a fixture spec. */
export function buildFixtureJob(spec: FixtureJobSpec): Record<string, unknown> {
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
        EphemeralDisk: { SizeMB: 20 },
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
            SP_HOLD_SECONDS: seconds(t.holdMs ?? 0),
          },
          Templates: [
            ...Object.entries(t.files ?? {}).map(([path, content]) => template(`local/${path}`, content)),
            template(LOG_SOURCES.stdout, t.stdout ?? ''),
            template(LOG_SOURCES.stderr, t.stderr ?? ''),
          ],
          LogConfig: { MaxFiles: 2, MaxFileSizeMB: 10, Disabled: t.logsDisabled === true },
          Resources: { CPU: 20, MemoryMB: 32 },
        })),
      },
    ],
  };
}

function template(dest: string, content: string) {
  return { EmbeddedTmpl: content, DestPath: dest, ChangeMode: 'noop', Perms: '0644', LeftDelim: TEMPLATE_DELIMS.left, RightDelim: TEMPLATE_DELIMS.right };
}

const templateSchema = z.object({ EmbeddedTmpl: z.string(), DestPath: z.string(), LeftDelim: z.literal(TEMPLATE_DELIMS.left), RightDelim: z.literal(TEMPLATE_DELIMS.right) }).passthrough();
const envNumber = z.string().regex(/^\d+(\.\d+)?$/);
const taskSchema = z
  .object({
    Name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    Driver: z.literal('raw_exec'),
    Config: z.object({ command: z.literal('/bin/sh'), args: z.tuple([z.literal('-c'), z.literal(FIXTURE_TASK_SCRIPT)]) }),
    Env: z.object({ SP_TICKS: z.string().regex(/^\d+$/), SP_TICK_SECONDS: envNumber, SP_TICK_FILE: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/), SP_HOLD_SECONDS: envNumber, SP_TRUNCATE_AT: z.string().regex(/^\d+$/).optional(), SP_DELETE_AT: z.string().regex(/^\d+$/).optional() }),
    Templates: z.array(templateSchema),
    LogConfig: z.object({ Disabled: z.boolean().optional() }).passthrough().optional(),
  })
  .passthrough();
const jobSchema = z
  .object({
    ID: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/),
    Namespace: z.string().optional(),
    Type: z.literal('batch'),
    Meta: z.record(z.string(), z.string()).optional(),
    Constraints: z.array(z.object({ LTarget: z.string(), RTarget: z.string(), Operand: z.string() }).passthrough()).nullable().optional(),
    TaskGroups: z.array(z.object({ Name: z.string(), Count: z.literal(1).optional(), Tasks: z.array(taskSchema).min(1) }).passthrough()).length(1),
  })
  .passthrough();

/** What a fixture job may look like, for the error of anything else. */
export const FIXTURE_JOB_SHAPE =
  'a batch job with one task group of count 1 whose raw_exec tasks run /bin/sh -c with stackproof\'s fixture script, SP_* environment, templates under local/ and secrets/stdout.txt, secrets/stderr.txt with stackproof\'s delimiters; optionally the unplaceable constraint';

/** The fixture spec of a job registered through the API, or why it is not a fixture job. */
export function parseFixtureJob(job: unknown): { spec: FixtureJobSpec } | { error: string } {
  const parsed = jobSchema.safeParse(job);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { error: `unsupported job: ${issue.path.join('.') || '(job)'}: ${issue.message}; this scheduler runs only ${FIXTURE_JOB_SHAPE}` };
  }
  const j = parsed.data;
  const constraints = j.Constraints ?? [];
  const unplaceable = constraints.some((c) => c.LTarget === `\${meta.${UNPLACEABLE_META}}`);
  if (constraints.length > (unplaceable ? 1 : 0)) return { error: `unsupported job: Constraints: only the unplaceable constraint on \${meta.${UNPLACEABLE_META}} is supported` };
  const tasks: FixtureTask[] = [];
  for (const t of j.TaskGroups[0]!.Tasks) {
    const files: Record<string, string> = {};
    let stdout = '';
    let stderr = '';
    for (const tpl of t.Templates) {
      if (tpl.DestPath === LOG_SOURCES.stdout) stdout = tpl.EmbeddedTmpl;
      else if (tpl.DestPath === LOG_SOURCES.stderr) stderr = tpl.EmbeddedTmpl;
      else if (tpl.DestPath.startsWith('local/') && !tpl.DestPath.split('/').includes('..')) files[tpl.DestPath.slice('local/'.length)] = tpl.EmbeddedTmpl;
      else return { error: `unsupported job: template destination ${JSON.stringify(tpl.DestPath)}: only local/<path>, ${LOG_SOURCES.stdout} and ${LOG_SOURCES.stderr} are supported` };
    }
    const count = Number(t.Env.SP_TICKS);
    const truncateAt = Number(t.Env.SP_TRUNCATE_AT ?? 0);
    const deleteAt = Number(t.Env.SP_DELETE_AT ?? 0);
    tasks.push({
      name: t.Name,
      files,
      stdout,
      stderr,
      logsDisabled: t.LogConfig?.Disabled === true,
      ...(count > 0 ? { ticks: { count, everyMs: Number(t.Env.SP_TICK_SECONDS) * 1000, file: t.Env.SP_TICK_FILE, ...(truncateAt > 0 ? { truncateAt } : {}), ...(deleteAt > 0 ? { deleteAt } : {}) } } : {}),
      holdMs: Number(t.Env.SP_HOLD_SECONDS) * 1000,
    });
  }
  const meta = { ...j.Meta };
  delete meta.stackproof;
  return { spec: { id: j.ID, namespace: j.Namespace || 'default', kind: unplaceable ? 'event' : 'allocation', tasks, meta } };
}
