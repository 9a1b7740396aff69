import { describe, expect, it } from 'vitest';
import { buildFixtureJob, type FixtureTask } from '../src/client/fixture-job.ts';
import { admitJob } from '../src/reference/scheduler/nomad-job/admit.ts';

/**
 * Every task shape the scheduler suites register passes the validation ported from Nomad
 * (src/reference/scheduler/nomad-job), which the harness's own fixture code never sees: a real Nomad
 * takes these jobs. The shapes cover each option of FixtureTask, alone and together, in both kinds.
 */
const shapes: Record<string, FixtureTask[]> = {
  'files, stdout and stderr, and a task with logging disabled (fs rules)': [
    { name: 'app', stdout: 'out\n', stderr: 'err\n', files: { 'data.txt': 'data\n', 'conf/app.json': '{}\n' } },
    { name: 'quiet', logsDisabled: true },
  ],
  'a running task that ticks, and a quiet one held (running fs rules)': [
    { name: 'app', stdout: 'out\n', files: { 'data.txt': 'data\n' }, ticks: { count: 1200, everyMs: 250, file: 'grow.txt' } },
    { name: 'quiet', logsDisabled: true, holdMs: 300_000 },
  ],
  'ticks that truncate and delete their file (file events)': [{ name: 'app', ticks: { count: 40, everyMs: 200, file: 'events.txt', truncateAt: 12, deleteAt: 20 }, holdMs: 30_000 }],
  'stdout only (events rules)': [{ name: 'app', stdout: 'placed\n' }],
  'no output at all (the event job)': [{ name: 'event' }],
};

describe('the fixture job against Nomad\'s ported validation', () => {
  for (const [what, tasks] of Object.entries(shapes)) {
    for (const kind of ['allocation', 'event'] as const) {
      it(`${what}, ${kind} kind: accepted`, () => {
        const result = admitJob({ Job: buildFixtureJob({ id: 'sp-abcdefghij-shape', namespace: 'default', kind, tasks, meta: { k: 'v' } }) }, { namespaceParam: null, region: 'global' });
        expect(result.ok || result.message).toBe(true);
        if (result.ok) {
          expect(result.warnings).toEqual([]);
          // No template without data: Nomad refuses one (Template.Validate).
          for (const t of result.job.TaskGroups[0]!.Tasks) for (const tpl of t.Templates ?? []) expect(tpl.EmbeddedTmpl).not.toBe('');
        }
      });
    }
  }

  it('refuses to build a fixture file without content, which Nomad would refuse', () => {
    expect(() => buildFixtureJob({ id: 'sp-x', namespace: 'default', kind: 'allocation', tasks: [{ name: 'app', files: { 'empty.txt': '' } }] })).toThrow(/must carry data/);
  });
});
