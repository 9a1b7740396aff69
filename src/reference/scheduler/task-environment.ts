import { taskDirs } from './task-process.ts';

export interface TaskEnvironmentInput {
  allocDir: string;
  allocId: string;
  allocName: string;
  allocIndex: number;
  jobId: string;
  jobName: string;
  parentId: string;
  group: string;
  task: string;
  namespace: string;
  region: string;
  datacenter: string;
  cpu: number;
  memoryMB: number;
  /** Job, group and task meta, later ones winning (as Nomad merges them). */
  meta: Record<string, string>;
  /** The task's own Env block. */
  env: Record<string, string>;
}

/**
 * The environment a raw_exec task sees: the NOMAD_* variables Nomad's task environment builder
 * sets (client/taskenv/env.go: NOMAD_ALLOC_DIR, NOMAD_TASK_DIR, NOMAD_SECRETS_DIR, NOMAD_ALLOC_ID,
 * NOMAD_SHORT_ALLOC_ID, NOMAD_ALLOC_NAME, NOMAD_ALLOC_INDEX, NOMAD_TASK_NAME, NOMAD_GROUP_NAME,
 * NOMAD_JOB_ID, NOMAD_JOB_NAME, NOMAD_JOB_PARENT_ID, NOMAD_DC, NOMAD_NAMESPACE, NOMAD_REGION,
 * NOMAD_CPU_LIMIT, NOMAD_MEMORY_LIMIT, NOMAD_META_<key> in the key's case and upper case), the
 * task's Env over them, and the host's PATH and HOME, since a driver without isolation runs with
 * the host's tools.
 */
export function taskEnvironment(i: TaskEnvironmentInput): Record<string, string> {
  const dirs = taskDirs(i.allocDir, i.task);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
    NOMAD_ALLOC_DIR: dirs.shared,
    NOMAD_TASK_DIR: dirs.local,
    NOMAD_SECRETS_DIR: dirs.secrets,
    NOMAD_ALLOC_ID: i.allocId,
    NOMAD_SHORT_ALLOC_ID: i.allocId.slice(0, 8),
    NOMAD_ALLOC_NAME: i.allocName,
    NOMAD_ALLOC_INDEX: String(i.allocIndex),
    NOMAD_TASK_NAME: i.task,
    NOMAD_GROUP_NAME: i.group,
    NOMAD_JOB_ID: i.jobId,
    NOMAD_JOB_NAME: i.jobName,
    NOMAD_JOB_PARENT_ID: i.parentId,
    NOMAD_DC: i.datacenter,
    NOMAD_NAMESPACE: i.namespace,
    NOMAD_REGION: i.region,
    NOMAD_CPU_LIMIT: String(i.cpu),
    NOMAD_MEMORY_LIMIT: String(i.memoryMB),
  };
  for (const [k, v] of Object.entries(i.meta)) {
    env[`NOMAD_META_${k}`] = v;
    env[`NOMAD_META_${k.toUpperCase()}`] = v;
  }
  return { ...env, ...i.env };
}
