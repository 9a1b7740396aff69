import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitJob, type AdmitResult } from '../src/reference/scheduler/nomad-job/admit.ts';
import { renderEmbeddedTemplate } from '../src/reference/scheduler/nomad-job/template-actions.ts';
import { findNomad, startNomadAgent, type NomadAgent } from './support/nomad-agent.ts';

/**
 * Each check sends a valid job with one field broken through admitJob and expects what Nomad answers
 * (status, exact body). Sources are cited in src/reference/scheduler/nomad-job/*.ts and in
 * docs/reference-fidelity.md ("Nomad: job registration").
 */

type J = Record<string, any>;
const S = 1_000_000_000;

/** The fixture job of the brief: batch, raw_exec, one template with custom delimiters. */
function base(): { Job: J } {
  return {
    Job: {
      ID: 'sp-abc-1',
      Type: 'batch',
      Datacenters: ['*'],
      TaskGroups: [{
        Name: 'fixture',
        Count: 1,
        RestartPolicy: { Attempts: 0, Mode: 'fail' },
        ReschedulePolicy: { Attempts: 0, Unlimited: false },
        EphemeralDisk: { SizeMB: 300 },
        Tasks: [{
          Name: 't',
          Driver: 'raw_exec',
          Config: { command: '/bin/sh', args: ['-c', 'echo hi'] },
          Env: { GREETING: 'hi' },
          Templates: [{ EmbeddedTmpl: '[[ env "GREETING" ]]\n', DestPath: 'local/x.txt', LeftDelim: '[[', RightDelim: ']]' }],
          LogConfig: { MaxFiles: 2, MaxFileSizeMB: 10, Disabled: false },
          Resources: { CPU: 20, MemoryMB: 32 },
        }],
      }],
    },
  };
}

const opts = { namespaceParam: null, region: 'global' };
const admit = (body: unknown): AdmitResult => admitJob(body, opts);
const group = (b: { Job: J }): J => b.Job.TaskGroups[0];
const task = (b: { Job: J }): J => b.Job.TaskGroups[0].Tasks[0];
const tmpl = (b: { Job: J }): J => b.Job.TaskGroups[0].Tasks[0].Templates[0];

/** hashicorp/go-multierror ListFormatFunc, written out again here so the test does not lean on the code under test. */
function ml(...errs: string[]): string {
  if (errs.length === 1) return `1 error occurred:\n\t* ${errs[0]}\n\n`;
  return `${errs.length} errors occurred:\n\t${errs.map((e) => `* ${e}`).join('\n\t')}\n\n`;
}
const inGroup = (...errs: string[]): string => ml(`Task group fixture validation failed: ${ml(...errs)}`);
const inTask = (...errs: string[]): string => inGroup(`Task t validation failed: ${ml(...errs)}`);

function refused(mutate: (b: { Job: J }) => void): AdmitResult {
  const b = base();
  mutate(b);
  return admit(b);
}

function expectRefusal(r: AdmitResult, status: number, message: string): void {
  expect(r).toEqual({ ok: false, status, message });
}

describe('Nomad job registration: the fixture job', () => {
  it('accepts the batch raw_exec fixture job with custom template delimiters, CPU 20 and 32 MB', () => {
    const r = admit(base());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings).toEqual([]);
    const tg = r.job.TaskGroups[0]!;
    const t = tg.Tasks[0]!;
    expect(r.job).toMatchObject({ ID: 'sp-abc-1', Name: 'sp-abc-1', Namespace: 'default', Region: 'global', Type: 'batch', Priority: 50, Datacenters: ['*'], NodePool: 'default', Meta: null, Constraints: null });
    expect(tg.RestartPolicy).toEqual({ Attempts: 0, Interval: 24 * 3600 * S, Delay: 15 * S, Mode: 'fail', RenderTemplates: false });
    expect(tg.ReschedulePolicy).toEqual({ Attempts: 0, Interval: 24 * 3600 * S, Delay: 5 * S, DelayFunction: 'constant', MaxDelay: 0, Unlimited: false });
    expect(tg.EphemeralDisk).toEqual({ SizeMB: 300, Sticky: false, Migrate: false });
    expect(t.Config).toEqual({ command: '/bin/sh', args: ['-c', 'echo hi'] });
    expect(t.Env).toEqual({ GREETING: 'hi' });
    expect(t.Resources).toEqual({ CPU: 20, MemoryMB: 32, MemoryMaxMB: 0, Cores: 0, SecretsMB: 0 });
    expect(t.LogConfig).toEqual({ MaxFiles: 2, MaxFileSizeMB: 10, Disabled: false });
    expect(t.KillTimeout).toBe(5 * S);
    expect(t.Templates![0]).toMatchObject({ DestPath: 'local/x.txt', LeftDelim: '[[', RightDelim: ']]', ChangeMode: 'restart', ChangeSignal: '', Splay: 5 * S, Perms: '0644', Envvars: false, ErrMissingKey: false });
  });

  it('refuses the fixture job with a 20 MB disk: log storage (2 x 10 MB) must be less than the disk', () => {
    const r = refused((b) => { group(b).EphemeralDisk = { SizeMB: 20 }; });
    expectRefusal(r, 500, inTask(ml('log storage (20 MB) must be less than requested disk capacity (20 MB)')));
    expect(r.ok || r.message).toBe('1 error occurred:\n\t* Task group fixture validation failed: 1 error occurred:\n\t* Task t validation failed: 1 error occurred:\n\t* 1 error occurred:\n\t* log storage (20 MB) must be less than requested disk capacity (20 MB)\n\n\n\n\n\n\n\n');
  });

  it('refuses a template with an empty EmbeddedTmpl and no SourcePath', () => {
    const r = refused((b) => { tmpl(b).EmbeddedTmpl = ''; });
    expectRefusal(r, 500, inTask(`Template 1 validation failed: ${ml('Must specify a source path or have an embedded template')}`));
  });
});

describe('Nomad job registration: defaults (api Canonicalize, ApiJobToStructJob, jobCanonicalizer)', () => {
  it('fills a minimal service job with Nomad defaults', () => {
    const r = admit({ Job: { ID: 'web', TaskGroups: [{ Name: 'g', Tasks: [{ Name: 'a', Driver: 'raw_exec' }] }] } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const tg = r.job.TaskGroups[0]!;
    const t = tg.Tasks[0]!;
    expect(r.job).toMatchObject({ Name: 'web', Type: 'service', Priority: 50, Namespace: 'default', Region: 'global', Datacenters: ['*'], NodePool: 'default', AllAtOnce: false, Stop: false });
    expect(tg.Count).toBe(1);
    expect(tg.RestartPolicy).toEqual({ Attempts: 2, Interval: 30 * 60 * S, Delay: 15 * S, Mode: 'fail', RenderTemplates: false });
    expect(tg.ReschedulePolicy).toEqual({ Attempts: 0, Interval: 0, Delay: 30 * S, DelayFunction: 'exponential', MaxDelay: 3600 * S, Unlimited: true });
    expect(tg.EphemeralDisk).toEqual({ SizeMB: 300, Sticky: false, Migrate: false });
    expect(t.Resources).toEqual({ CPU: 100, MemoryMB: 300, MemoryMaxMB: 0, Cores: 0, SecretsMB: 0 });
    expect(t.LogConfig).toEqual({ MaxFiles: 10, MaxFileSizeMB: 10, Disabled: false });
    expect(t.KillTimeout).toBe(5 * S);
    expect(t.RestartPolicy).toEqual(tg.RestartPolicy);
    expect(t.Config).toBeNull();
  });

  it('batch restart defaults, Priority 0 becomes 50, cores without cpu gives CPU 0, a template defaults', () => {
    const r = refused((b) => {
      b.Job.Priority = 0;
      delete group(b).RestartPolicy;
      task(b).Resources = { Cores: 1 };
      task(b).KillTimeout = 0;
      tmpl(b).ChangeMode = 'signal';
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const t = r.job.TaskGroups[0]!.Tasks[0]!;
    expect(r.job.Priority).toBe(50);
    expect(r.job.TaskGroups[0]!.RestartPolicy).toEqual({ Attempts: 3, Interval: 24 * 3600 * S, Delay: 15 * S, Mode: 'fail', RenderTemplates: false });
    expect(t.Resources).toMatchObject({ CPU: 0, Cores: 1, MemoryMB: 300 });
    expect(t.KillTimeout).toBe(5 * S);
    expect(t.Templates![0]!.ChangeSignal).toBe('SIGHUP');
  });

  it('takes the namespace from ?namespace= over the body and the job, and Job.Region "global" is the agent region', () => {
    const b = base();
    b.Job.Namespace = 'from-job';
    b.Job.Region = 'global';
    const viaQuery = admitJob({ ...b, Namespace: 'from-body' }, { namespaceParam: 'from-query', region: 'global' });
    expect(viaQuery.ok && viaQuery.job.Namespace).toBe('from-query');
    const viaBody = admitJob({ ...b, Namespace: 'from-body' }, { namespaceParam: null, region: 'global' });
    expect(viaBody.ok && viaBody.job.Namespace).toBe('from-body');
    const viaJob = admitJob(b, { namespaceParam: null, region: 'global' });
    expect(viaJob.ok && viaJob.job.Namespace).toBe('from-job');
  });

  it('ignores unknown fields and matches field names case-insensitively, as Go encoding/json does', () => {
    const r = refused((b) => { b.Job.NotAField = { x: 1 }; b.Job.priority = 70; });
    expect(r.ok && r.job.Priority).toBe(70);
    expect(r.ok && 'NotAField' in r.job).toBe(false);
  });

  it('warns when memory_max is set, since memory oversubscription is off by default', () => {
    const r = refused((b) => { task(b).Resources.MemoryMaxMB = 64; });
    expect(r.ok && r.warnings).toEqual(['Memory oversubscription is not enabled; Task "fixture.t" memory_max value will be ignored. Update the Scheduler Configuration to allow oversubscription.']);
  });
});

describe('Nomad job registration: HTTP decoding and handler checks (400)', () => {
  it('decode: a string where Job.Priority (int) belongs', () => {
    expectRefusal(refused((b) => { b.Job.Priority = 'high'; }), 400, 'json: cannot unmarshal string into Go struct field Job.Job.Priority of type int');
  });
  it('decode: a non-integer number for TaskGroup.Count', () => {
    expectRefusal(refused((b) => { group(b).Count = 1.5; }), 400, 'json: cannot unmarshal number 1.5 into Go struct field TaskGroup.Job.TaskGroups.Count of type int');
  });
  it('decode: a number for Task.Driver', () => {
    expectRefusal(refused((b) => { task(b).Driver = 7; }), 400, 'json: cannot unmarshal number into Go struct field Task.Job.TaskGroups.Tasks.Driver of type string');
  });
  it('decode: a duration given as a string ("5s") for KillTimeout', () => {
    expectRefusal(refused((b) => { task(b).KillTimeout = '5s'; }), 400, 'json: cannot unmarshal string into Go struct field Task.Job.TaskGroups.Tasks.KillTimeout of type time.Duration');
  });
  it('decode: a string as a task group', () => {
    expectRefusal(refused((b) => { b.Job.TaskGroups = ['fixture']; }), 400, 'json: cannot unmarshal string into Go struct field Job.Job.TaskGroups of type api.TaskGroup');
  });
  it('decode: a number as an Env value', () => {
    expectRefusal(refused((b) => { task(b).Env = { A: 1 }; }), 400, 'json: cannot unmarshal number into Go struct field Task.Job.TaskGroups.Tasks.Env of type string');
  });
  it('decode: a body that is not an object', () => {
    expectRefusal(admit([]), 400, 'json: cannot unmarshal array into Go value of type api.JobRegisterRequest');
  });
  it('no Job', () => {
    expectRefusal(admit({}), 400, 'Job must be specified');
    expectRefusal(admit({ Job: null }), 400, 'Job must be specified');
  });
  it('no Job.ID', () => {
    expectRefusal(refused((b) => { delete b.Job.ID; }), 400, "Job ID hasn't been provided");
  });
  it('a system job with a scaling block', () => {
    expectRefusal(refused((b) => { b.Job.Type = 'system'; group(b).Scaling = { Max: 1 }; }), 400, 'Task groups with job type system do not support scaling blocks');
  });
  it('EvalPriority out of 1..100', () => {
    expectRefusal(admit({ ...base(), EvalPriority: 101 }), 400, 'Eval priority must be between 1 and 100 inclusively');
  });
  it('a region the agent has no path to (500 from the RPC forward)', () => {
    expectRefusal(refused((b) => { b.Job.Region = 'mars'; }), 500, 'No path to region');
  });
});

describe('Nomad job registration: structs.Job.Validate and jobValidate (500)', () => {
  it('empty ID (and so an empty Name)', () => {
    expectRefusal(refused((b) => { b.Job.ID = ''; }), 500, ml('Missing job ID', 'Missing job name'));
  });
  it('ID with a space', () => {
    expectRefusal(refused((b) => { b.Job.ID = 'sp abc'; }), 500, ml('Job ID contains a space'));
  });
  it('ID with a null character (Name, defaulted to the ID, has one too)', () => {
    expectRefusal(refused((b) => { b.Job.ID = 'sp\u0000abc'; }), 500, ml('Job ID contains a null character', 'Job Name contains a null character'));
  });
  it('Name with a null character', () => {
    expectRefusal(refused((b) => { b.Job.Name = 'n\u0000'; }), 500, ml('Job Name contains a null character'));
  });
  it('Name empty', () => {
    expectRefusal(refused((b) => { b.Job.Name = ''; }), 500, ml('Missing job name'));
  });
  it('unknown job type', () => {
    expectRefusal(refused((b) => { b.Job.Type = 'cron'; }), 500, ml('Invalid job type: "cron"'));
  });
  it('job type _core (valid for Job.Validate, refused by jobValidate)', () => {
    expectRefusal(refused((b) => { b.Job.Type = '_core'; }), 500, ml('job type cannot be core'));
  });
  it('priority above the server maximum (100) and below 1', () => {
    expectRefusal(refused((b) => { b.Job.Priority = 101; }), 500, ml('job priority must be between [1, 100]'));
    expectRefusal(refused((b) => { b.Job.Priority = -5; }), 500, ml('job priority must be between [1, 100]'));
  });
  it('an empty datacenter name', () => {
    expectRefusal(refused((b) => { b.Job.Datacenters = ['dc1', '']; }), 500, ml('Job datacenter must be non-empty string'));
  });
  it('no task groups', () => {
    expectRefusal(refused((b) => { b.Job.TaskGroups = []; }), 500, ml('Missing job task groups'));
  });
  it('two groups with the same name', () => {
    expectRefusal(refused((b) => { b.Job.TaskGroups.push(structuredClone(group(b))); }), 500, ml("Job task group 2 redefines 'fixture' from group 1"));
  });
  it('a group without a name', () => {
    expectRefusal(refused((b) => { group(b).Name = ''; }), 500, ml('Job task group 1 missing name', `Task group  validation failed: ${ml('Missing task group name')}`));
  });
  it('a system job group with count 2', () => {
    const r = refused((b) => { b.Job.Type = 'system'; delete group(b).ReschedulePolicy; group(b).Count = 2; });
    expectRefusal(r, 500, ml('Job task group fixture has count 2. Count cannot exceed 1 with system scheduler'));
  });
  it('a negative group ShutdownDelay', () => {
    expectRefusal(refused((b) => { group(b).ShutdownDelay = -1; }), 500, ml('ShutdownDelay must be a positive value'));
  });
  it('a job constraint with an unknown operand (and every error listed, in order)', () => {
    const r = refused((b) => { b.Job.Constraints = [{ LTarget: '${attr.kernel.name}', RTarget: 'linux', Operand: 'like' }]; b.Job.Priority = 200; });
    expectRefusal(r, 500, ml(`Constraint 1 validation failed: ${ml('Unknown constraint type "like"')}`, 'job priority must be between [1, 100]'));
  });
});

describe('Nomad job registration: constraints (structs.Constraint.Validate)', () => {
  const withConstraint = (c: J): AdmitResult => refused((b) => { b.Job.Constraints = [c]; });
  const cErr = (...e: string[]): string => ml(`Constraint 1 validation failed: ${ml(...e)}`);
  it('missing operand', () => {
    expectRefusal(withConstraint({ LTarget: 'a', RTarget: 'b' }), 500, cErr('Missing constraint operand', 'Unknown constraint type ""'));
  });
  it('"=" without RTarget', () => {
    expectRefusal(withConstraint({ LTarget: '${node.class}', Operand: '=' }), 500, cErr('Operator "=" requires an RTarget'));
  });
  it('missing LTarget', () => {
    expectRefusal(withConstraint({ RTarget: 'x', Operand: '!=' }), 500, cErr('No LTarget provided but is required by constraint'));
  });
  it('a regexp that does not compile', () => {
    expectRefusal(withConstraint({ LTarget: '${attr.os.name}', RTarget: '(ubuntu', Operand: 'regexp' }), 500, cErr('Regular expression failed to compile: error parsing regexp: missing closing ): `(ubuntu`'));
  });
  it('a malformed version constraint', () => {
    expectRefusal(withConstraint({ LTarget: '${attr.nomad.version}', RTarget: '>= 1.x', Operand: 'version' }), 500, cErr('Version constraint is invalid: Malformed constraint: >= 1.x'));
  });
  it('a malformed semver constraint', () => {
    expectRefusal(withConstraint({ LTarget: '${attr.nomad.version}', RTarget: '~> 1.2', Operand: 'semver' }), 500, cErr('Semver constraint is invalid: Malformed constraint: ~> 1.2'));
  });
  it('set_contains without RTarget', () => {
    expectRefusal(withConstraint({ LTarget: '${meta.tags}', Operand: 'set_contains' }), 500, cErr('Set contains constraint requires an RTarget'));
  });
  it('is_set with an RTarget', () => {
    expectRefusal(withConstraint({ LTarget: '${meta.tags}', RTarget: 'x', Operand: 'is_set' }), 500, cErr('Operator "is_set" does not support an RTarget'));
  });
  it('distinct_property with a count that is not a number', () => {
    expectRefusal(withConstraint({ LTarget: '${meta.rack}', RTarget: 'two', Operand: 'distinct_property' }), 500, cErr('Failed to convert RTarget "two" to uint64: strconv.ParseUint: parsing "two": invalid syntax'));
  });
  it('distinct_hosts at task level', () => {
    const r = refused((b) => { task(b).Constraints = [{ Operand: 'distinct_hosts' }]; });
    expectRefusal(r, 500, inTask('Constraint 1 has disallowed Operand at task level: distinct_hosts'));
  });
});

describe('Nomad job registration: task groups (structs.TaskGroup.Validate)', () => {
  it('negative count', () => {
    expectRefusal(refused((b) => { group(b).Count = -1; }), 500, inGroup("Task group count can't be negative"));
  });
  it('no tasks', () => {
    expectRefusal(refused((b) => { group(b).Tasks = []; }), 500, inGroup('Missing tasks for task group'));
  });
  it('two tasks with the same name', () => {
    const r = refused((b) => { group(b).Tasks.push(structuredClone(task(b))); });
    expectRefusal(r, 500, inGroup("Task 2 redefines 't' from task 1"));
  });
  it('two leader tasks', () => {
    const r = refused((b) => { task(b).Leader = true; const t2 = structuredClone(task(b)); t2.Name = 'u'; group(b).Tasks.push(t2); });
    expectRefusal(r, 500, inGroup('Only one task may be marked as leader'));
  });
  it('restart mode not delay/fail', () => {
    expectRefusal(refused((b) => { group(b).RestartPolicy.Mode = 'retry'; }), 500, inGroup('Unsupported restart mode: "retry"', 'Restart policy "retry" with 0 attempts is ambiguous'));
  });
  it('restart mode delay with 0 attempts', () => {
    expectRefusal(refused((b) => { group(b).RestartPolicy.Mode = 'delay'; }), 500, inGroup('Restart policy "delay" with 0 attempts is ambiguous'));
  });
  it('restart interval under 5s, and attempts x delay over the interval', () => {
    const r = refused((b) => { group(b).RestartPolicy = { Attempts: 3, Mode: 'fail', Interval: 1 * S, Delay: 15 * S }; });
    expectRefusal(r, 500, inGroup('Interval can not be less than 5s (got 1s)', "Nomad can't restart the TaskGroup 3 times in an interval of 1s with a delay of 15s"));
  });
  it('reschedule: unknown delay function', () => {
    const r = refused((b) => { group(b).ReschedulePolicy = { Attempts: 2, Interval: 3600 * S, DelayFunction: 'linear' }; });
    expectRefusal(r, 500, inGroup('Invalid delay function "linear", must be one of ["constant" "exponential" "fibonacci"]', 'Max Delay cannot be less than 5s (got 5s)', 'Max Delay cannot be less than Delay 5s (got 0s)'));
  });
  it('reschedule: Attempts > 0 with Unlimited', () => {
    const r = refused((b) => { group(b).ReschedulePolicy = { Attempts: 2, Unlimited: true }; });
    expectRefusal(r, 500, inGroup('Reschedule Policy with Attempts = 2, Interval = 24h0m0s, and Unlimited = true is ambiguous', 'If Attempts >0, Unlimited cannot also be set to true'));
  });
  it('reschedule: too many attempts for the interval', () => {
    const r = refused((b) => { group(b).ReschedulePolicy = { Attempts: 10, Interval: 20 * S, Delay: 5 * S }; });
    expectRefusal(r, 500, inGroup('Nomad can only make 4 attempts in 20s with initial delay 5s and delay function "constant"', 'Set the interval to at least 50s to accommodate 10 attempts'));
  });
  it('reschedule: delay under 5s and interval under 15s', () => {
    const r = refused((b) => { group(b).ReschedulePolicy = { Attempts: 1, Interval: 10 * S, Delay: 1 * S }; });
    expectRefusal(r, 500, inGroup('Delay cannot be less than 5s (got 1s)', 'Interval cannot be less than 15s (got 10s)'));
  });
  it('a system job with a reschedule policy', () => {
    expectRefusal(refused((b) => { b.Job.Type = 'system'; }), 500, inGroup('System jobs should not have a reschedule policy'));
  });
  it('ephemeral disk under 10 MB', () => {
    const r = refused((b) => { group(b).EphemeralDisk = { SizeMB: 5 }; task(b).LogConfig = { MaxFiles: 1, MaxFileSizeMB: 1 }; });
    expectRefusal(r, 500, inGroup('minimum DiskMB value is 10; got 5'));
  });
  it('an update block in a batch job', () => {
    expectRefusal(refused((b) => { group(b).Update = { MaxParallel: 1 }; }), 500, inGroup('Job type "batch" does not allow update block'));
  });
  it('a migrate block in a batch job', () => {
    expectRefusal(refused((b) => { group(b).Migrate = { MaxParallel: 1 }; }), 500, inGroup('Job type "batch" does not allow migrate block'));
  });
  it('max_client_disconnect negative', () => {
    expectRefusal(refused((b) => { group(b).MaxClientDisconnect = -S; }), 500, inGroup('max_client_disconnect cannot be negative'));
  });
});

describe('Nomad job registration: tasks (structs.Task.Validate, Resources, LogConfig)', () => {
  it('task without a name', () => {
    expectRefusal(refused((b) => { task(b).Name = ''; }), 500, ml(`Task group fixture validation failed: ${ml('Task 1 missing name', `Task  validation failed: ${ml('Missing task name')}`)}`));
  });
  it('task name with a slash', () => {
    const r = refused((b) => { task(b).Name = 'a/b'; });
    expectRefusal(r, 500, ml(`Task group fixture validation failed: ${ml(`Task a/b validation failed: ${ml('Task name cannot include slashes')}`)}`));
  });
  it('task name with a null character', () => {
    const r = refused((b) => { task(b).Name = 'a\u0000'; });
    expectRefusal(r, 500, ml(`Task group fixture validation failed: ${ml(`Task a\u0000 validation failed: ${ml('Task name cannot include null characters')}`)}`));
  });
  it('no driver', () => {
    expectRefusal(refused((b) => { task(b).Driver = ''; }), 500, inTask('Missing task driver'));
  });
  it('negative kill timeout', () => {
    expectRefusal(refused((b) => { task(b).KillTimeout = -S; }), 500, inTask('KillTimeout must be a positive value'));
  });
  it('kill timeout longer than the service default progress deadline (10m)', () => {
    const r = refused((b) => { b.Job.Type = 'service'; delete group(b).ReschedulePolicy; task(b).KillTimeout = 11 * 60 * S; });
    expectRefusal(r, 500, inTask("KillTimout (11m0s) longer than the group's ProgressDeadline (10m0s)"));
  });
  it('negative task ShutdownDelay', () => {
    expectRefusal(refused((b) => { task(b).ShutdownDelay = -S; }), 500, inTask('ShutdownDelay must be a positive value'));
  });
  it('CPU 0 and MemoryMB 5 (minimums 1 and 10)', () => {
    const r = refused((b) => { task(b).Resources = { CPU: 0, MemoryMB: 5 }; });
    expectRefusal(r, 500, inTask(ml(ml('minimum CPU value is 1; got 0', 'minimum MemoryMB value is 10; got 5'))));
  });
  it('both cpu and cores', () => {
    expectRefusal(refused((b) => { task(b).Resources = { CPU: 20, Cores: 1, MemoryMB: 32 }; }), 500, inTask(ml("Task can only ask for 'cpu' or 'cores' resource, not both.")));
  });
  it('memory_max below memory', () => {
    expectRefusal(refused((b) => { task(b).Resources.MemoryMaxMB = 16; }), 500, inTask(ml('MemoryMaxMB value (16) should be larger than MemoryMB value (32)')));
  });
  it('log MaxFiles 0 and MaxFileSizeMB 0', () => {
    const r = refused((b) => { task(b).LogConfig = { MaxFiles: 0, MaxFileSizeMB: 0 }; });
    expectRefusal(r, 500, inTask(ml('minimum number of files is 1; got 0', 'minimum file size is 1MB; got 0')));
  });
  it('default logs (10 x 10 MB) on a 100 MB disk', () => {
    const r = refused((b) => { delete task(b).LogConfig; group(b).EphemeralDisk = { SizeMB: 100 }; });
    expectRefusal(r, 500, inTask(ml('log storage (100 MB) must be less than requested disk capacity (100 MB)')));
  });
});

describe('Nomad job registration: templates (structs.Template.Validate)', () => {
  const tErr = (...e: string[]): string => inTask(`Template 1 validation failed: ${ml(...e)}`);
  it('no destination', () => {
    expectRefusal(refused((b) => { delete tmpl(b).DestPath; }), 500, tErr('Must specify a destination for the template'));
  });
  it('a destination escaping the allocation directory', () => {
    expectRefusal(refused((b) => { tmpl(b).DestPath = '../../etc/passwd'; }), 500, tErr('destination escapes allocation directory'));
  });
  it('a destination in the alloc dir (../alloc/x) is allowed', () => {
    expect(refused((b) => { tmpl(b).DestPath = '../alloc/x.txt'; }).ok).toBe(true);
  });
  it('an unknown change mode', () => {
    expectRefusal(refused((b) => { tmpl(b).ChangeMode = 'reload'; }), 500, tErr('Invalid change mode. Must be one of the following: noop, signal, script, restart'));
  });
  it('change mode signal with an empty signal', () => {
    expectRefusal(refused((b) => { tmpl(b).ChangeMode = 'signal'; tmpl(b).ChangeSignal = ''; }), 500, tErr('Must specify signal value when change mode is signal'));
  });
  it('change mode signal on an env template', () => {
    expectRefusal(refused((b) => { tmpl(b).ChangeMode = 'signal'; tmpl(b).Envvars = true; }), 500, tErr('cannot use signals with env var templates'));
  });
  it('change mode script without a script', () => {
    expectRefusal(refused((b) => { tmpl(b).ChangeMode = 'script'; }), 500, tErr('must specify change script configuration value when change mode is script'));
  });
  it('negative splay', () => {
    expectRefusal(refused((b) => { tmpl(b).Splay = -1; }), 500, tErr('Must specify positive splay value'));
  });
  it('perms that are not octal, and perms over 12 bits', () => {
    expectRefusal(refused((b) => { tmpl(b).Perms = '0689'; }), 500, tErr('Failed to parse "0689" as octal: strconv.ParseUint: parsing "0689": invalid syntax'));
    expectRefusal(refused((b) => { tmpl(b).Perms = '17777'; }), 500, tErr('Failed to parse "17777" as octal: strconv.ParseUint: parsing "17777": value out of range'));
  });
  it('wait min over max', () => {
    expectRefusal(refused((b) => { tmpl(b).Wait = { Min: 10 * S, Max: 2 * S }; }), 500, tErr('wait min 10s is greater than max 2s'));
  });
  it('two templates with the same destination', () => {
    const r = refused((b) => { task(b).Templates.push({ EmbeddedTmpl: 'x', DestPath: 'local/x.txt' }); });
    expectRefusal(r, 500, inTask('Template 2 has same destination as 1'));
  });
});

describe('renderEmbeddedTemplate (the reference renders env and string literals only)', () => {
  it('copies text outside actions byte for byte and renders env and literals', () => {
    expect(renderEmbeddedTemplate('a={{ env "A" }}\nb={{"lit"}} {{ env "MISSING" }}.', '', '', { A: '1' })).toEqual({ ok: true, text: 'a=1\nb=lit .' });
  });
  it('uses custom delimiters and leaves the default ones as text', () => {
    expect(renderEmbeddedTemplate('[[ env "A" ]] {{ env "A" }}', '[[', ']]', { A: 'x' })).toEqual({ ok: true, text: 'x {{ env "A" }}' });
  });
  it('applies trim markers', () => {
    expect(renderEmbeddedTemplate('a  \n {{- env "A" -}} \n  b', '', '', { A: '1' })).toEqual({ ok: true, text: 'a1b' });
  });
  it('refuses other functions, naming them', () => {
    expect(renderEmbeddedTemplate('{{ key "service/x" }}', '', '', {})).toEqual({ ok: false, message: 'template: function "key" is not implemented by the stackproof reference (it renders env and string literals only)' });
    expect(renderEmbeddedTemplate('{{ env "A" | toUpper }}', '', '', {})).toEqual({ ok: false, message: 'template: function "toUpper" is not implemented by the stackproof reference (it renders env and string literals only)' });
  });
  it('refuses field actions and unclosed actions', () => {
    expect(renderEmbeddedTemplate('{{ .Name }}', '', '', {})).toEqual({ ok: false, message: 'template: action {{ .Name }} is not implemented by the stackproof reference (it renders env and string literals only)' });
    expect(renderEmbeddedTemplate('x {{ env "A"', '', '', {})).toEqual({ ok: false, message: 'template: unclosed action' });
  });
  it('does not end an action at a delimiter inside a string literal', () => {
    expect(renderEmbeddedTemplate('{{ "a}}b" }}!', '', '', {})).toEqual({ ok: true, text: 'a}}b!' });
  });
});

/**
 * Checks Nomad added in v1.11.0 (nomad/structs/structs.go Task.Validate: a task named "alloc";
 * TaskGroup.Validate: sysbatch groups checked as system ones, "System or sysbatch jobs should not
 * have a reschedule policy"; api/tasks.go TaskGroup.Canonicalize gives sysbatch groups no default
 * policy). The reference answers as the release it claims (1.9.0 unless told), and as 2.0.5 when told.
 */
describe('Nomad job registration: the checks of v1.11.0, by the release answered as', () => {
  const allocTask = (): { Job: J } => {
    const b = base();
    task(b).Name = 'alloc';
    return b;
  };
  const sysbatch = (policy: boolean): { Job: J } => {
    const b = base();
    b.Job.Type = 'sysbatch';
    if (!policy) delete group(b).ReschedulePolicy;
    else group(b).ReschedulePolicy = { Attempts: 1, Interval: 86_400 * S, Delay: 5 * S, DelayFunction: 'constant', Unlimited: false };
    return b;
  };
  const system = (): { Job: J } => {
    const b = base();
    b.Job.Type = 'system';
    return b;
  };
  const as = (version: string | undefined, body: unknown) => admitJob(body, { ...opts, ...(version ? { version } : {}) });

  it.each([undefined, '1.9.7', '1.10.5'])('before v1.11.0 (%s): a task named alloc and a sysbatch reschedule policy are accepted', (version) => {
    expect(as(version, allocTask()).ok).toBe(true);
    expect(as(version, sysbatch(true)).ok).toBe(true);
    expectRefusal(as(version, system()), 500, inGroup('System jobs should not have a reschedule policy'));
  });

  it.each(['1.11.0', '2.0.5'])('since v1.11.0 (%s): both refused, and a system job in the new words', (version) => {
    expectRefusal(as(version, allocTask()), 500, ml(`Task group fixture validation failed: ${ml(`Task alloc validation failed: ${ml('Task cannot be named "alloc"')}`)}`));
    expectRefusal(as(version, sysbatch(true)), 500, inGroup('System or sysbatch jobs should not have a reschedule policy'));
    expectRefusal(as(version, system()), 500, inGroup('System or sysbatch jobs should not have a reschedule policy'));
    // Without a policy of its own a sysbatch group gets none, and is accepted.
    expect(as(version, sysbatch(false)).ok).toBe(true);
  });
});

for (const which of ['current', '1.6.1'] as const) {
  const found = findNomad(which);
  describe.skipIf(!found.path)(`the same registrations on real Nomad (${which === 'current' ? '2.0.5' : '1.6.1'}), answered as its release`, () => {
    let agent: NomadAgent;
    beforeAll(async () => {
      agent = await startNomadAgent(found.path!);
    }, 120_000);
    afterAll(async () => agent?.stop(), 60_000);

    const bodies: [string, () => { Job: J }][] = [
      ['a task named alloc', () => { const b = base(); task(b).Name = 'alloc'; return b; }],
      ['a sysbatch group with a reschedule policy', () => { const b = base(); b.Job.Type = 'sysbatch'; group(b).ReschedulePolicy = { Attempts: 1, Interval: 86_400 * S, Delay: 5 * S, DelayFunction: 'constant', Unlimited: false }; return b; }],
      ['a sysbatch group without one', () => { const b = base(); b.Job.Type = 'sysbatch'; delete group(b).ReschedulePolicy; return b; }],
      ['a system group with a reschedule policy', () => { const b = base(); b.Job.Type = 'system'; return b; }],
    ];
    it.each(bodies)('%s', async (_, make) => {
      const body = make();
      body.Job.ID = `sp-v111-${Math.random().toString(36).slice(2, 8)}`;
      // The node's datacenter: a job that is accepted is also placed, and purged at once.
      body.Job.Datacenters = ['dc1'];
      const res = await request(`${agent.url}/v1/jobs`, { method: 'PUT', headers: { 'x-nomad-token': agent.token }, body: JSON.stringify(body) });
      const text = await res.body.text();
      const mine = admitJob(body, { ...opts, version: agent.version });
      if (mine.ok) {
        expect(res.statusCode, text).toBe(200);
        await (await request(`${agent.url}/v1/job/${body.Job.ID}?purge=true`, { method: 'DELETE', headers: { 'x-nomad-token': agent.token } })).body.dump();
      } else expect({ status: res.statusCode, text }).toEqual({ status: mine.status, text: mine.message });
    });
  });
  if (!found.path) console.log(`reference-nomad-job-validation: no Nomad ${which} binary (${found.why}): the comparison with the real product is skipped`);
}
