import { dialectFor, tokenHeaders } from '../config/dialects.ts';
import type { SystemName } from '../config/names.ts';
import { targetsSchema } from '../config/schema.ts';
import { HttpClient } from '../client/http-client.ts';
import { Redactor } from '../client/redact.ts';
import type { DiffFixtures } from './fixtures/diff-fixtures.ts';
import { makeMeshFixtures } from './fixtures/mesh.ts';
import { makeSecretsFixtures } from './fixtures/secrets.ts';
import { SECRETS_ENDPOINTS } from './endpoints/secrets.ts';
import { makeSchedulerFixtures } from './fixtures/scheduler.ts';
import { MESH_ENDPOINTS } from './endpoints/mesh.ts';
import { SCHEDULER_ENDPOINTS } from './endpoints/scheduler.ts';
import type { DiffEndpoint } from './request-template.ts';
import type { Sender } from './send-request.ts';

/** What the diff needs of a system: its endpoints, how to make its fixtures, how its tokens travel. */
export interface SystemKit {
  endpoints: DiffEndpoint[];
  /** Globs of answer paths, on every endpoint, whose object keys are data rather than fields. */
  maps: string[];
  makeFixtures(target: { url: string; token: string }, prefix: string): Promise<DiffFixtures>;
  sender(target: { url: string; token: string }, fixtures: DiffFixtures, timeoutMs: number): Sender;
}

const HASHICORP = dialectFor('hashicorp');

/** The target profile a provisioner takes: only URL, token and the hashicorp dialect, as a user gives them. */
function profile<S extends SystemName>(system: S, target: { url: string; token: string }) {
  const parsed = targetsSchema.parse({ [system]: { url: target.url, token: target.token, dialect: 'hashicorp' } });
  return parsed[system]!;
}

function sender(system: SystemName, target: { url: string; token: string }, fixtures: DiffFixtures, timeoutMs: number): Sender {
  const redactor = new Redactor();
  for (const s of [target.token, ...fixtures.secrets]) redactor.add(s);
  const carrier = system === 'secrets' ? { header: HASHICORP.secrets.tokenHeader } : HASHICORP[system].token;
  return {
    http: new HttpClient({ baseUrl: target.url, defaultHeaders: tokenHeaders(carrier, target.token), timeoutMs, redactor, maxBodyBytes: 1024 * 1024 }),
    carrier,
    ...(system === 'secrets' ? { fixedHeaders: { [HASHICORP.secrets.requestHeader]: 'true' } } : {}),
  };
}

export function systemKit(system: SystemName): SystemKit {
  switch (system) {
    case 'scheduler':
      return {
        endpoints: SCHEDULER_ENDPOINTS,
        // Nomad's maps keyed by data: node and job metadata, task environments and driver
        // configurations, node attributes and drivers, a task's processes by PID.
        maps: ['Meta', 'Static', 'Dynamic', '*.Meta', '*.Env', '*.Config', '*.Attributes', '*.Drivers', '*.Pids', '*.Links'],
        makeFixtures: (t, prefix) => makeSchedulerFixtures(profile('scheduler', t), prefix),
        sender: (t, f, ms) => sender('scheduler', t, f, ms),
      };
    case 'secrets':
      return {
        endpoints: SECRETS_ENDPOINTS,
        // Maps keyed by data: an OpenAPI document's paths and schemas, a key's versions and custom metadata.
        maps: ['openapi.paths', 'openapi.components.schemas', '*.custom_metadata', 'data.versions', '*.metadata.custom_metadata'],
        makeFixtures: (t, prefix) => makeSecretsFixtures(profile('secrets', t), prefix),
        sender: (t, f, ms) => sender('secrets', t, f, ms),
      };
    case 'mesh':
      return {
        endpoints: MESH_ENDPOINTS,
        maps: [],
        makeFixtures: (t, prefix) => makeMeshFixtures(profile('mesh', t), prefix),
        sender: (t, f, ms) => sender('mesh', t, f, ms),
      };
    default:
      throw new Error(`the diff does not cover the ${system} system yet`);
  }
}
