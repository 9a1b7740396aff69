import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dialectFor, type DialectName } from '../config/dialects.ts';
import { sendPlainError } from './http/plain-errors.ts';
import { startHttpServer, type RunningServer } from './http/server.ts';
import { FAULTS } from './faults/catalog.ts';
import { FaultSet } from './faults/types.ts';
import { CertificateAuthority } from './mesh/certificate-authority.ts';
import { MeshService } from './mesh/service.ts';
import { SchedulerService } from './scheduler/service.ts';
import { seedJobs } from './scheduler/seed-jobs.ts';
import { sendErrors } from './secrets/respond.ts';
import { SecretsService } from './secrets/service.ts';
import { SigningKey } from './secrets/oidc/signing-key.ts';
import { ControlService } from './control.ts';
import type { ReferenceBehavior } from './behavior.ts';
import { CloudSimulator } from '../cloud/simulator.ts';
import { EXIT } from '../cli/exit-codes.ts';

export class ReferenceBehaviorError extends Error {
  readonly exitCode = EXIT.USAGE;
}

export interface ReferenceOptions {
  dialect?: DialectName;
  /** `upstream` (hashicorp dialect only) also reproduces the products' listed spec deviations. */
  behavior?: ReferenceBehavior;
  faults?: string[];
  host?: string;
  /**
   * Start the reference-only control listener (default true). Without it the reference is like a
   * real product: what the spec does not show how to make cannot be had through a side door.
   */
  control?: boolean;
  /** Run raw_exec tasks (default true); false answers as a Nomad whose raw_exec driver is not detected. */
  rawExec?: boolean;
  /** At most this many allocations run at once (default 64). */
  maxRunningAllocations?: number;
  /** The Nomad release the scheduler answers as in the hashicorp dialect (default src/reference/scheduler/nomad-version.ts). */
  nomadVersion?: string;
}

export interface ReferenceEndpoint {
  url: string;
  token: string;
}

/** Namespaces the embedded secrets service creates at start (reference setup), nested ones included. */
export const REFERENCE_NAMESPACES = ['team-a/', 'team-a/app/', 'team-b/'];

/** The second OIDC signing key the reference creates at start (the spec does not show how keys are made). */
export const REFERENCE_ALT_KEY = 'stackproof-alt';

export interface RunningReference {
  dialect: DialectName;
  behavior: ReferenceBehavior;
  faults: string[];
  secrets: ReferenceEndpoint & {
    proxyUrl: string;
    namespaces: string[];
    kvV1Mount: string;
    kvV2Mount: string;
    oidcAltKey: string;
    /** The cloud-identity simulator the auth method trusts. */
    cloud: { simulatorUrl: string; simulatorToken: string; tenantId: string };
  };
  /** `namespaces`: whether the agent acts like an Enterprise one (namespaces) or a CE one. */
  mesh: ReferenceEndpoint & { namespaces: boolean };
  scheduler: ReferenceEndpoint & { nodeId: string; /** Where allocations' directories are. */ allocRoot: string; /** The process IDs of tasks still running. */ runningTaskPids(): number[] };
  /** The reference-only control interface (fixtures, CA rotation, event generation); absent when started without it. */
  control?: ReferenceEndpoint;
  stop(): Promise<void>;
}

/** A reference started with its control listener (the default). */
export type ReferenceWithControl = RunningReference & { control: ReferenceEndpoint };

/**
 * The schedulers of the references this process runs. Their tasks are processes of their own
 * process groups: if the process exits without stopping a reference (an uncaught error,
 * process.exit), they are killed with it rather than left running.
 */
const liveSchedulers = new Set<SchedulerService>();
process.on('exit', () => {
  for (const s of liveSchedulers) s.cluster.killAllNow();
});

export class UnknownFaultError extends Error {
  readonly exitCode = EXIT.USAGE;
}

/**
 * Starts the embedded reference of all three systems, each on its own loopback listener with a
 * port chosen by the OS, serving one dialect and carrying the given faults.
 */
export function startReference(options?: ReferenceOptions & { control?: true }): Promise<ReferenceWithControl>;
export function startReference(options: ReferenceOptions): Promise<RunningReference>;
export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  const dialectName = options.dialect ?? 'spec';
  const behavior = options.behavior ?? 'spec';
  if (behavior === 'upstream' && dialectName !== 'hashicorp') {
    throw new ReferenceBehaviorError('the upstream reference behaviour reproduces the HashiCorp products: it needs the hashicorp dialect (--reference-dialect hashicorp)');
  }
  const dialect = dialectFor(dialectName);
  // Like the products started in dev mode: Consul CE has no namespaces.
  const meshNamespaces = behavior !== 'upstream';
  const unknown = (options.faults ?? []).filter((id) => !FAULTS.some((f) => f.id === id));
  if (unknown.length) throw new UnknownFaultError(`unknown fault id(s): ${unknown.join(', ')}`);
  const faults = new FaultSet(options.faults ?? []);
  const host = options.host ?? '127.0.0.1';

  let meshIndex = 10;
  const controlToken = randomUUID();
  // The key pairs are made side by side: each is a key generation on libuv's thread pool, and one
  // after the other they were most of the reference's start-up.
  const [ca, cloud] = await Promise.all([CertificateAuthority.create(`${randomUUID()}.consul`, () => ++meshIndex), CloudSimulator.create(controlToken)]);
  // The OIDC signing pairs are made on first use (SigningKey.deferred). Reference setup: a second
  // signing key, so that a change of a client's key can be told from a missing key.
  const defaultKey = SigningKey.deferred('default');
  const altKey = SigningKey.deferred(REFERENCE_ALT_KEY);
  const signingKeys = new Map([
    ['default', defaultKey],
    [REFERENCE_ALT_KEY, altKey],
  ]);
  const secrets = new SecretsService({ dialect, behavior, faults, namespaces: REFERENCE_NAMESPACES, signingKeys });
  const meshToken = randomUUID();
  const mesh = new MeshService({ dialect, behavior, namespaces: meshNamespaces, faults, ca, managementToken: meshToken, datacenter: 'dc1', nextIndex: () => ++meshIndex });
  const schedulerToken = randomUUID();
  const nodeId = randomUUID();
  let schedulerIndex = 100;
  const allocRoot = await mkdtemp(join(tmpdir(), 'stackproof-allocs-'));
  const scheduler = new SchedulerService({
    dialect,
    behavior,
    faults,
    nodeId,
    managementToken: schedulerToken,
    staticMeta: { 'node.rack': 'r1', 'connect.sidecar_image': 'envoy:v1', owner: 'platform', 'stackproof.unsettable': 'static' },
    allocRoot,
    nextIndex: () => ++schedulerIndex,
    rawExec: options.rawExec !== false,
    ...(options.maxRunningAllocations !== undefined ? { maxRunningAllocations: options.maxRunningAllocations } : {}),
    ...(options.nomadVersion !== undefined ? { nomadVersion: options.nomadVersion } : {}),
  });
  liveSchedulers.add(scheduler);
  await seedScheduler(scheduler);
  const control = options.control === false ? undefined : new ControlService({ token: controlToken, secrets, mesh, scheduler });

  const servers: RunningServer[] = [];
  try {
    servers.push(await startHttpServer('secrets', (req, res, m) => secrets.handle(req, res, m), internalError(sendJsonError), { host }));
    // The request-header proxy mode: a second listener in front of the same service.
    servers.push(await startHttpServer('secrets-proxy', (req, res, m) => secrets.handleViaProxy(req, res, m), internalError(sendJsonError), { host }));
    // The mesh agent's API has no LIST method (see HttpServerOptions.listMethod).
    servers.push(await startHttpServer('mesh', (req, res, m) => mesh.handle(req, res, m), internalError(sendPlainInternal), { host, listMethod: false }));
    servers.push(await startHttpServer('scheduler', (req, res, m) => scheduler.handle(req, res, m), internalError(sendPlainInternal), { host }));
    servers.push(await startHttpServer('cloud', (req, res, m) => cloud.handle(req, res, m), internalError(sendPlainInternal), { host }));
    if (control) servers.push(await startHttpServer('control', (req, res, m) => control.handle(req, res, m), internalError(sendPlainInternal), { host }));
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    await scheduler.stop();
    liveSchedulers.delete(scheduler);
    await rm(allocRoot, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    throw err;
  }
  const [s, proxy, m, sc, cl, ctl] = servers as [RunningServer, RunningServer, RunningServer, RunningServer, RunningServer, RunningServer | undefined];
  secrets.apiAddr = s.url;
  cloud.baseUrl = cl.url;
  secrets.cloudBase = cl.url;
  return {
    dialect: dialectName,
    behavior,
    faults: faults.list(),
    secrets: { url: s.url, token: secrets.rootToken.id, proxyUrl: proxy.url, namespaces: secrets.namespaces.paths(), kvV1Mount: secrets.kvV1Mount, kvV2Mount: secrets.kvV2Mount,
      oidcAltKey: REFERENCE_ALT_KEY,
      cloud: { simulatorUrl: cl.url, simulatorToken: controlToken, tenantId: cloud.tenantId },
    },
    mesh: { url: m.url, token: meshToken, namespaces: meshNamespaces },
    scheduler: { url: sc.url, token: schedulerToken, nodeId, allocRoot, runningTaskPids: () => scheduler.cluster.runningPids() },
    ...(ctl ? { control: { url: ctl.url, token: controlToken } } : {}),
    stop: async () => {
      await scheduler.stop();
      liveSchedulers.delete(scheduler);
      await Promise.all(servers.map((srv) => srv.close()));
      // A task's last output can land while the tree is removed (ENOTEMPTY, seen in CI): rm retries those.
      await rm(allocRoot, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    },
  };
}

function sendJsonError(res: ServerResponse, message: string): void {
  sendErrors(res, 500, [message]);
}

function sendPlainInternal(res: ServerResponse, message: string): void {
  sendPlainError(res, 500, message);
}

/** A handler bug answers 500 with the system's error format and is logged; it never stops the server. */
function internalError(send: (res: ServerResponse, message: string) => void) {
  return (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    console.error(`[reference] ${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}`);
    send(res, `internal error: ${(err as Error)?.message ?? String(err)}`);
  };
}

/**
 * Reference setup: the node registers, and the reference's own seed jobs are registered through the
 * scheduler's job API code, so the stream and the fs endpoints have real content from real
 * processes and their events are those of real actions.
 */
async function seedScheduler(scheduler: SchedulerService): Promise<void> {
  scheduler.publishNode('NodeRegistration');
  const jobs = seedJobs();
  for (const body of jobs) scheduler.registerOwnJob(body);
  // The reference answers once its seed allocations have run (or, without raw_exec, at once).
  if (!scheduler.rawExec) return;
  const ids = jobs.map((j) => String(j.Job.ID));
  const done = () => ids.every((id) => scheduler.cluster.allocationsOf('default', id).some((a) => a.ClientStatus === 'complete' || a.ClientStatus === 'failed'));
  for (let waited = 0; !done() && waited < 10_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
}
