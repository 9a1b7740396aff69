import { Agent, request, type Dispatcher } from 'undici';
import { z } from 'zod';
import type { DialectName } from './dialects.ts';
import type { SystemName } from './names.ts';

/**
 * What `stackproof init` can learn about a target without a token: whether it answers, which
 * dialect it speaks (from the headers and unauthenticated paths the upstream products answer), and
 * the capabilities visible from outside. Every finding carries how it was found, for the comment
 * the config template writes next to it; what cannot be found stays undecided.
 */

/** One capability finding: `value` undefined means it cannot be told without a token. */
export interface Finding<T> {
  value: T | undefined;
  how: string;
}

export interface TargetDetection {
  system: SystemName;
  url: string;
  reachable: boolean;
  /** How reachability was judged (the first answer, or why there was none). */
  reachability: string;
  dialect: Finding<DialectName>;
  /** The product's version, when an unauthenticated answer names it. */
  version?: string;
  /** Enterprise edition (namespaces possible); secrets and mesh only. */
  enterprise?: Finding<boolean>;
  /** Other things worth a comment (a sealed Vault, ACLs on). */
  notes: string[];
  /** Set when the answers are another product's (Consul's headers on a scheduler URL). */
  otherProduct?: string;
}

/** A probe's answer: what a dialect guess may look at. */
interface Answer {
  path: string;
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

type Probe = Answer | { path: string; error: string };

const isAnswer = (p: Probe): p is Answer => 'status' in p;

/** The whole detection of one target stays within this, however slow the target. */
export const DETECT_DEADLINE_MS = 5_000;
/** Enough for any of the probed answers; a larger body is cut, not buffered. */
const MAX_BODY_BYTES = 256 * 1024;
/** A path no product serves: an endpoint that answers differently from it exists. */
const NO_SUCH_PATH = '/v1/stackproof-init/no-such-endpoint';

const PROBE_PATHS: Record<SystemName, string[]> = {
  // Vault answers its health endpoint without a token (vault/http/sys_health.go); spec 000's OIDC key
  // set needs no token in either ("The well-known configuration and the key set need no token"), and
  // the provider named default is built in (Vault 1.9+: vault/identity_store_oidc_provider.go).
  secrets: ['/v1/sys/health', '/v1/identity/oidc/provider/default/.well-known/keys'],
  // Consul: /v1/agent/self (agent:read); the CA roots are spec 001's and need no token in either.
  mesh: ['/v1/agent/self', '/v1/agent/connect/ca/roots', NO_SUCH_PATH],
  // Nomad: /v1/status/leader needs no token; /v1/agent/self needs agent:read; /v1/client/stats is spec 002's.
  // Nomad's X-Nomad-Index/KnownLeader/LastContact come only with query answers (command/agent/http.go
  // setMeta), which need a token under ACLs, so the endpoints decide more often than the headers.
  // Consul answers /v1/status/leader as Nomad does; its CA roots (no token, X-Consul-Index) tell it apart.
  scheduler: ['/v1/status/leader', '/v1/agent/self', '/v1/client/stats', NO_SUCH_PATH, '/v1/agent/connect/ca/roots'],
};

/** Vault's /v1/sys/health (vault/http/sys_health.go HealthResponse); `enterprise` is in newer versions, `license` only on Enterprise. */
const vaultHealth = z.looseObject({
  initialized: z.boolean(),
  sealed: z.boolean(),
  standby: z.boolean(),
  version: z.string(),
  enterprise: z.boolean().optional(),
  license: z.looseObject({ state: z.string() }).optional(),
});

/** Consul's /v1/agent/self: Config.Version is RuntimeConfig.VersionWithMetadata (agent/config/runtime.go), "+ent" on Enterprise. */
const consulSelf = z.looseObject({ Config: z.looseObject({ Version: z.string() }) });

/** Nomad's /v1/agent/self. */
const nomadSelf = z.looseObject({ config: z.looseObject({ Version: z.looseObject({ Version: z.string() }).optional() }) });

/** Nomad's /v1/status/leader: the leader's RPC address as a JSON string ("" when there is none). */
const nomadLeader = z.string();

/** Spec 000's OIDC key set (a JWKS). */
const keySet = z.looseObject({ keys: z.array(z.unknown()) });

/** Spec 001's CA roots. */
const caRoots = z.looseObject({ ActiveRootID: z.string(), Roots: z.array(z.unknown()) });

function parsed<S extends z.ZodType>(schema: S, answer: Answer | undefined): z.infer<S> | undefined {
  if (!answer) return undefined;
  try {
    const result = schema.safeParse(JSON.parse(answer.body));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

async function probe(dispatcher: Dispatcher, base: string, path: string, signal: AbortSignal): Promise<Probe> {
  try {
    const res = await request(new URL(path.slice(1), base), { dispatcher, signal, headers: { accept: 'application/json' } });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_BODY_BYTES) {
        res.body.destroy();
        break;
      }
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    return { path, status: res.statusCode, headers, body: Buffer.concat(chunks).toString('utf8') };
  } catch (err) {
    return { path, error: describeFailure(err, signal) };
  }
}

function describeFailure(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'no answer before the deadline';
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  return code ? `connection failed (${code})` : `request failed (${(err as Error).message})`;
}

const headerNames = (answers: Answer[], prefix: string) => [...new Set(answers.flatMap((a) => Object.keys(a.headers).filter((k) => k.startsWith(prefix))))];

/** Probes one target (a few GETs at once, no token) and judges what it is. */
export async function detectTarget(system: SystemName, url: string, deadlineMs = DETECT_DEADLINE_MS): Promise<TargetDetection> {
  // Its own pool, closed at the end, so no kept-alive socket holds the CLI open after init.
  const dispatcher = new Agent({ connect: { timeout: deadlineMs }, pipelining: 0 });
  const signal = AbortSignal.timeout(deadlineMs);
  const base = url.endsWith('/') ? url : `${url}/`;
  let probes: Probe[];
  try {
    probes = await Promise.all(PROBE_PATHS[system].map((p) => probe(dispatcher, base, p, signal)));
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
  const answers = probes.filter(isAnswer);
  const detection: TargetDetection = {
    system,
    url,
    reachable: answers.length > 0,
    reachability: answers.length ? `GET ${answers[0]!.path} answered ${answers[0]!.status}` : (probes[0] as { error: string }).error,
    dialect: { value: undefined, how: '' },
    notes: [],
  };
  if (!answers.length) {
    detection.dialect = { value: undefined, how: `unreachable when init ran (${detection.reachability})` };
    return detection;
  }
  const at = (path: string) => answers.find((a) => a.path === path);
  // Another product's own headers settle it first: Consul's /v1/status/leader answers as Nomad's does.
  const other = otherProduct(system, answers);
  if (other) {
    detection.otherProduct = other;
    detection.dialect = { value: undefined, how: `it answers as ${other}` };
    return detection;
  }
  if (system === 'secrets') judgeSecrets(detection, at('/v1/sys/health'), at('/v1/identity/oidc/provider/default/.well-known/keys'));
  if (system === 'mesh') judgeMesh(detection, answers, at);
  if (system === 'scheduler') judgeScheduler(detection, answers, at);
  return detection;
}

/**
 * A product of another system, by the headers only it sets: Consul's X-Consul-* (every answer since
 * 1.9, the blocking endpoints' X-Consul-Index before), Nomad's X-Nomad-*, spec 001's X-Mesh-Index.
 */
function otherProduct(system: SystemName, answers: Answer[]): string | undefined {
  const consul = headerNames(answers, 'x-consul-');
  const nomad = headerNames(answers, 'x-nomad-');
  const mesh = headerNames(answers, 'x-mesh-');
  if (system !== 'mesh' && consul.length) return `a Consul agent (its answers carry ${consul.join(', ')})`;
  if (system !== 'mesh' && mesh.length) return `a mesh agent of spec 001 (its answers carry ${mesh.join(', ')})`;
  if (system !== 'scheduler' && nomad.length) return `a Nomad agent (its answers carry ${nomad.join(', ')})`;
  return undefined;
}

function judgeSecrets(d: TargetDetection, health: Answer | undefined, keys: Answer | undefined): void {
  const body = parsed(vaultHealth, health);
  if (!health || !body) {
    d.dialect =
      keys?.status === 200 && parsed(keySet, keys)
        ? { value: 'spec', how: `GET /v1/identity/oidc/provider/default/.well-known/keys answered 200 with a key set without a token, and GET /v1/sys/health ${health?.status ?? 'nothing'} without Vault's health fields` }
        : { value: undefined, how: `GET /v1/sys/health answered ${health?.status ?? 'nothing'} without Vault's health fields (Vault answers it without a token), and GET /v1/identity/oidc/provider/default/.well-known/keys ${keys?.status ?? 'nothing'} without a key set` };
    return;
  }
  d.version = body.version;
  d.dialect = { value: 'hashicorp', how: `GET /v1/sys/health answered ${health.status} with Vault's health fields (version ${body.version}) without a token` };
  if (body.sealed) d.notes.push('the target reported sealed: true; unseal it before a run');
  if (body.enterprise !== undefined) d.enterprise = { value: body.enterprise, how: `enterprise: ${body.enterprise} in /v1/sys/health` };
  else if (body.license) d.enterprise = { value: true, how: 'a license field in /v1/sys/health (only Enterprise reports one)' };
  else if (/\+ent/.test(body.version)) d.enterprise = { value: true, how: `version ${body.version} in /v1/sys/health` };
  else d.enterprise = { value: undefined, how: `/v1/sys/health of version ${body.version} names no edition` };
}

function judgeMesh(d: TargetDetection, answers: Answer[], at: (p: string) => Answer | undefined): void {
  const consul = headerNames(answers, 'x-consul-');
  const self = at('/v1/agent/self');
  const roots = at('/v1/agent/connect/ca/roots');
  if (consul.length) {
    d.dialect = { value: 'hashicorp', how: `the answers carry ${consul.join(', ')} (Consul sets X-Consul-Default-ACL-Policy on every answer since 1.9)` };
  } else if (roots?.headers['x-mesh-index'] !== undefined || parsed(caRoots, roots)) {
    d.dialect = { value: 'spec', how: `GET /v1/agent/connect/ca/roots answered ${roots!.status}${roots!.headers['x-mesh-index'] !== undefined ? ' with X-Mesh-Index' : ''} and no X-Consul-* header` };
  } else {
    d.dialect = { value: undefined, how: `no X-Consul-* header, and GET /v1/agent/connect/ca/roots answered ${roots?.status ?? 'nothing'}` };
  }
  const info = parsed(consulSelf, self);
  if (info) {
    d.version = info.Config.Version;
    const ent = /\+ent/.test(info.Config.Version);
    d.enterprise = { value: ent, how: `Config.Version ${info.Config.Version} in /v1/agent/self${ent ? '' : ' (Enterprise versions end in +ent)'}` };
  } else if (self?.status === 403) {
    d.enterprise = { value: undefined, how: 'GET /v1/agent/self answered 403: the edition takes a token with agent:read to read' };
    d.notes.push('ACLs are on (/v1/agent/self needs a token)');
  } else {
    d.enterprise = { value: undefined, how: `GET /v1/agent/self answered ${self?.status ?? 'nothing'}, and nothing else names the edition without a token` };
  }
}

function judgeScheduler(d: TargetDetection, answers: Answer[], at: (p: string) => Answer | undefined): void {
  const nomad = headerNames(answers, 'x-nomad-');
  const leader = at('/v1/status/leader');
  const self = at('/v1/agent/self');
  const none = at(NO_SUCH_PATH);
  const stats = at('/v1/client/stats');
  const info = parsed(nomadSelf, self);
  if (info?.config.Version) d.version = info.config.Version.Version;
  if (nomad.length) d.dialect = { value: 'hashicorp', how: `the answers carry ${nomad.join(', ')}` };
  else if (leader?.status === 200 && parsed(nomadLeader, leader) !== undefined) d.dialect = { value: 'hashicorp', how: 'GET /v1/status/leader answered 200 with a leader address (Nomad answers it without a token)' };
  else if (info) d.dialect = { value: 'hashicorp', how: 'GET /v1/agent/self answered with Nomad\'s agent fields' };
  else if (self && none && self.status !== none.status && self.status !== 404)
    d.dialect = { value: 'hashicorp', how: `GET /v1/agent/self answered ${self.status} where an unknown path answers ${none.status}: Nomad's agent endpoint exists (not in spec 002)` };
  else if (stats && stats.status !== 404 && (!none || none.status !== stats.status))
    d.dialect = { value: 'spec', how: `GET /v1/client/stats answered ${stats.status} and Nomad's agent and status endpoints did not answer` };
  else d.dialect = { value: undefined, how: `neither Nomad's endpoints nor spec 002's /v1/client/stats answered (${answers.map((a) => `${a.path} ${a.status}`).join(', ')})` };
  if (self?.status === 403) d.notes.push('ACLs are on (/v1/agent/self needs a token)');
}

/** Probes all given targets at once; the whole takes at most about one deadline. */
export function detectTargets(urls: Partial<Record<SystemName, string>>, deadlineMs = DETECT_DEADLINE_MS): Promise<TargetDetection[]> {
  return Promise.all(
    (Object.entries(urls) as [SystemName, string | undefined][]).filter((e): e is [SystemName, string] => Boolean(e[1])).map(([system, url]) => detectTarget(system, url, deadlineMs)),
  );
}
