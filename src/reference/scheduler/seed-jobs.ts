import { randomBytes } from 'node:crypto';

/**
 * The reference's own setup: two jobs that run when it starts, so that the event stream and the fs
 * endpoints have real content from real processes before any client acts. They are written here as
 * any Nomad user writes a job (api.Job JSON), and go through the same validation as every job.
 */

/** Random lines from one draw of the CSPRNG per log rather than one per line (3,000 lines took a tenth of a second). */
function lines(prefix: string, n: number): string {
  const bytes = randomBytes(12 * n);
  return Array.from({ length: n }, (_, i) => `${prefix} line ${i + 1}: ${bytes.toString('hex', 12 * i, 12 * i + 12)}\n`).join('');
}

/** Prints the task's out.txt and err.txt (rendered from templates into secrets/) to stdout and stderr. */
const PRINT = 'cat "$NOMAD_SECRETS_DIR/out.txt"; if [ -f "$NOMAD_SECRETS_DIR/err.txt" ]; then cat "$NOMAD_SECRETS_DIR/err.txt" >&2; fi';

function task(name: string, files: Record<string, string>, logsDisabled = false) {
  return {
    Name: name,
    Driver: 'raw_exec',
    Config: { command: '/bin/sh', args: ['-c', PRINT] },
    Templates: Object.entries(files).map(([dest, data]) => ({ DestPath: dest, EmbeddedTmpl: data, ChangeMode: 'noop' })),
    LogConfig: { MaxFiles: 2, MaxFileSizeMB: 10, Disabled: logsDisabled },
    Resources: { CPU: 50, MemoryMB: 64 },
  };
}

function job(id: string, tasks: ReturnType<typeof task>[]) {
  return { Job: { ID: id, Name: id, Type: 'batch', Datacenters: ['*'], TaskGroups: [{ Name: id, Count: 1, RestartPolicy: { Attempts: 0, Mode: 'fail' }, EphemeralDisk: { SizeMB: 100 }, Tasks: tasks }] } };
}

/** The seed jobs' registration bodies: `web` (a task with logs and files, and one with logging disabled) and `batch`. */
export function seedJobs(): { Job: Record<string, unknown> }[] {
  return [
    job('web', [
      task('web', { 'secrets/out.txt': lines('web stdout', 200), 'secrets/err.txt': lines('web stderr', 40), 'local/config.json': '{"port": 8080}\n', 'local/data/blob.bin': randomBytes(150_000).toString('base64') }),
      task('sidecar', { 'secrets/out.txt': 'sidecar ready\n', 'local/envoy.yaml': 'admin: {}\n' }, true),
    ]),
    job('batch', [task('worker', { 'secrets/out.txt': lines('worker', 3000) })]),
  ];
}
