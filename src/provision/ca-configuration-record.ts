import { BroadcastChannel } from 'node:worker_threads';
import { z } from 'zod';
import type { HttpClient } from '../client/http-client.ts';
import { ConsulAdminApi, type CaConfiguration } from './consul-admin-api.ts';
import type { Sweeper } from './sweep-report.ts';

/**
 * What a run changes on a Consul agent that it did not make — the CA configuration — is recorded
 * on the agent before the first change and put back at the end, on Ctrl-C, and by `stackproof
 * cleanup` after a killed run (as the scheduler provisioner records a node's eligibility in the
 * node's metadata).
 *
 * The record is a key in Consul's KV store, `stackproof/<run prefix>/ca-configuration`: a place any
 * management token may write (key write, agent/consul/kvs_endpoint.go kvsPreApply) and cleanup can
 * list, named under the run prefix. It holds the provider, ForceWithoutCrossSigning and the
 * provider's Config without the keys that are secret or belong to the active root (PrivateKey,
 * RootCert, a Vault provider's Token, ...): those are never written in clear, and need not be — a
 * rotation (a new PrivateKey) cannot be undone without another rotation, so putting the
 * configuration back keeps the agent's current values of those keys and sets every other one
 * (LeafCertTTL, RotationPeriod, IntermediateCertTTL, PrivateKeyType/Bits, SkipValidate, ...) as
 * recorded. The record also counts the run's rotations, which the end of the run reports.
 */

export const CA_RECORD_ROOT = 'stackproof/';

export function caRecordKey(prefix: string): string {
  return `${CA_RECORD_ROOT}${prefix}/ca-configuration`;
}

const ANY_CA_RECORD = /^stackproof\/(sp-[0-9a-z]{10})\/ca-configuration$/;

/** Config keys never recorded and never put back: secrets, and what is tied to the active root. */
const KEPT_AS_FOUND = new Set(['PrivateKey', 'RootCert', 'Token', 'IntermediateCert', 'IntermediatePEM']);
const SECRET_LOOKING = /private.?key|token|secret|password|credential/i;
export const keptAsFound = (key: string) => KEPT_AS_FOUND.has(key) || SECRET_LOOKING.test(key);

const recordSchema = z.object({
  version: z.literal(1),
  /** The run that wrote the record. */
  run: z.string(),
  /** The earlier run whose record this one copied (the first record wins). */
  copiedFrom: z.string().optional(),
  provider: z.string(),
  config: z.record(z.string(), z.unknown()),
  forceWithoutCrossSigning: z.boolean().optional(),
  /** Keys of the Config the agent had that were left out (their values are kept as the agent has them). */
  keptAsFound: z.array(z.string()),
  /** CA rotations the run made (they cannot be undone). */
  rotations: z.number().int().nonnegative(),
  recordedAt: z.string(),
});
export type CaRecord = z.infer<typeof recordSchema>;

interface KvEntry {
  key: string;
  value: string;
  createIndex: number;
  modifyIndex: number;
}

const kvEntries = z.array(z.object({ Key: z.string(), Value: z.string().nullable().optional(), CreateIndex: z.number(), ModifyIndex: z.number() }).passthrough()).nullable();

/** Consul's KV endpoints (agent/kvs_endpoint.go): what the record needs of them. */
export class ConsulKv {
  constructor(readonly http: HttpClient) {}

  private static entries(text: string): KvEntry[] {
    return (kvEntries.parse(JSON.parse(text)) ?? []).map((e) => ({ key: e.Key, value: Buffer.from(e.Value ?? '', 'base64').toString('utf8'), createIndex: e.CreateIndex, modifyIndex: e.ModifyIndex }));
  }

  async get(key: string): Promise<KvEntry | undefined> {
    const res = await this.http.request({ method: 'GET', path: `/v1/kv/${key}` });
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`GET /v1/kv/${key} answered ${res.status} ${res.text.trim().slice(0, 160)}`);
    return ConsulKv.entries(res.text)[0];
  }

  /** Every entry under a prefix (`?recurse`); none is a 404. */
  async list(prefix: string): Promise<KvEntry[]> {
    const res = await this.http.request({ method: 'GET', path: `/v1/kv/${prefix}`, query: { recurse: '' } });
    if (res.status === 404) return [];
    if (res.status !== 200) throw new Error(`GET /v1/kv/${prefix}?recurse answered ${res.status} ${res.text.trim().slice(0, 160)}`);
    return ConsulKv.entries(res.text);
  }

  /** A write; with `cas` only if the key's ModifyIndex is that (0: only if it does not exist). Whether it was written. */
  async put(key: string, value: string, cas?: number): Promise<boolean> {
    const res = await this.http.request({ method: 'PUT', path: `/v1/kv/${key}`, query: cas === undefined ? undefined : { cas: String(cas) }, body: value });
    if (res.status !== 200) throw new Error(`PUT /v1/kv/${key} answered ${res.status} ${res.text.trim().slice(0, 160)}`);
    return res.text.trim() === 'true';
  }

  delete(key: string): Promise<{ status: number; text: string }> {
    return this.http.request({ method: 'DELETE', path: `/v1/kv/${key}` });
  }
}

/**
 * Every thread of the process (the suites run in vitest's worker threads) hears when a run's CA
 * configuration is being put back (a second Ctrl-C): from then on its fixtures change the CA no more.
 */
const CHANNEL = 'stackproof-ca-configuration';
const closedRuns = new Set<string>();
let listener: BroadcastChannel | undefined;
function listen(): void {
  if (listener) return;
  listener = new BroadcastChannel(CHANNEL);
  listener.onmessage = (event) => {
    const data = (event as { data?: unknown }).data;
    if (typeof data === 'string') closedRuns.add(data);
  };
  listener.unref();
}
listen();

/** From now on no thread of this process changes the CA configuration for this run. */
export function closeCaChanges(prefix: string): void {
  closedRuns.add(prefix);
  const sender = new BroadcastChannel(CHANNEL);
  sender.postMessage(prefix);
  sender.close();
}

export function caChangesClosed(prefix: string): boolean {
  return closedRuns.has(prefix);
}

/** Throws when the run's CA configuration is being put back: a fixture must not change it again. */
export function refuseCaChangeWhenClosed(prefix: string): void {
  if (closedRuns.has(prefix)) throw new Error(`run ${prefix} is being stopped and its CA configuration put back: no further change to it is made`);
}

function recordOf(config: CaConfiguration, run: string): CaRecord {
  const kept = Object.keys(config.Config).filter(keptAsFound);
  const recorded = Object.fromEntries(Object.entries(config.Config).filter(([k]) => !keptAsFound(k)));
  const force = (config as { ForceWithoutCrossSigning?: unknown }).ForceWithoutCrossSigning;
  return { version: 1, run, provider: config.Provider, config: recorded, ...(typeof force === 'boolean' ? { forceWithoutCrossSigning: force } : {}), keptAsFound: kept, rotations: 0, recordedAt: new Date().toISOString() };
}

function parseRecord(entry: KvEntry): CaRecord | undefined {
  try {
    return recordSchema.parse(JSON.parse(entry.value));
  } catch {
    return undefined;
  }
}

/** The CA configuration records of every run on the agent (or of one run), the first made first. */
export async function caRecords(kv: ConsulKv, prefix: string | 'all' = 'all'): Promise<{ key: string; run: string; createIndex: number; modifyIndex: number; record?: CaRecord }[]> {
  const entries = await kv.list(prefix === 'all' ? CA_RECORD_ROOT : `${CA_RECORD_ROOT}${prefix}/`);
  return entries
    .map((e) => ({ e, run: ANY_CA_RECORD.exec(e.key)?.[1] }))
    .filter((x): x is { e: KvEntry; run: string } => Boolean(x.run) && (prefix === 'all' || x.run === prefix))
    .map(({ e, run }) => ({ key: e.key, run, createIndex: e.createIndex, modifyIndex: e.modifyIndex, record: parseRecord(e) }))
    .sort((a, b) => a.createIndex - b.createIndex);
}

/**
 * Records the CA configuration before the run first changes it. A record the run already made
 * stays (the CA may be changed by now); another run's record, if one is left (a killed run, or a run
 * going on beside this one), is copied, since that run saw the CA before either changed it: the
 * first record wins. The write is `?cas=0`, so of two threads of the run recording at once the
 * first one's record stands. Throws when no record can be made: the change must not go ahead.
 */
export async function recordCaConfiguration(api: ConsulAdminApi, kv: ConsulKv, prefix: string): Promise<void> {
  const key = caRecordKey(prefix);
  if (await kv.get(key)) return;
  const first = (await caRecords(kv)).find((r) => r.run !== prefix && r.record);
  const record: CaRecord = first?.record
    ? { ...first.record, run: prefix, copiedFrom: first.record.copiedFrom ?? first.run, rotations: 0, recordedAt: new Date().toISOString() }
    : recordOf(await api.caConfiguration(), prefix);
  await kv.put(key, JSON.stringify(record), 0);
}

/** Counts one CA rotation in the run's record (compare-and-set, retried while other threads of the run count too). */
export async function countCaRotation(kv: ConsulKv, prefix: string): Promise<void> {
  const key = caRecordKey(prefix);
  for (let attempt = 0; attempt < 20; attempt++) {
    const entry = await kv.get(key);
    const record = entry && parseRecord(entry);
    if (!entry || !record) return;
    if (await kv.put(key, JSON.stringify({ ...record, rotations: record.rotations + 1 }), entry.modifyIndex)) return;
  }
}

const stable = (v: unknown): string => JSON.stringify(v, (_k, val: unknown) => (val && typeof val === 'object' && !Array.isArray(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => a.localeCompare(b))) : val));

/** What differs between the agent's configuration and the record, in words ("LeafCertTTL 72h, no SkipValidate"); empty when nothing. */
export function caDifferences(current: CaConfiguration, record: CaRecord): string[] {
  const out: string[] = [];
  const now = Object.fromEntries(Object.entries(current.Config).filter(([k]) => !keptAsFound(k)));
  const keys = [...new Set([...Object.keys(record.config), ...Object.keys(now)])].sort((a, b) => (a === 'LeafCertTTL' ? -1 : b === 'LeafCertTTL' ? 1 : a.localeCompare(b)));
  for (const k of keys) {
    if (stable(now[k]) === stable(record.config[k])) continue;
    out.push(k in record.config ? `${k} ${typeof record.config[k] === 'string' ? record.config[k] : JSON.stringify(record.config[k])}` : `no ${k}`);
  }
  const force = (current as { ForceWithoutCrossSigning?: unknown }).ForceWithoutCrossSigning;
  if (record.forceWithoutCrossSigning !== undefined && force !== record.forceWithoutCrossSigning) out.push(`ForceWithoutCrossSigning ${record.forceWithoutCrossSigning}`);
  return out;
}

/**
 * Puts the CA configuration back as the run (or, with 'all', the first of the runs) recorded it,
 * and removes the records once it is back; a record stays when the configuration could not be put
 * back, so cleanup can be run again. Returns the rotations the records counted.
 */
export async function putBackCaConfiguration(api: ConsulAdminApi, kv: ConsulKv, sweeper: Sweeper, prefix: string | 'all', options: { keepRecords?: boolean } = {}): Promise<{ records: number; rotations: number; runs: string[] }> {
  const records = (await sweeper.attempt('list the CA configuration records (KV stackproof/)', () => caRecords(kv, prefix))) ?? [];
  if (!records.length) return { records: 0, rotations: 0, runs: [] };
  const rotations = records.reduce((n, r) => n + (r.record?.rotations ?? 0), 0);
  const runs = records.map((r) => r.run).join(', ');
  const first = records.find((r) => r.record);
  let restored = true;
  if (first?.record) {
    const record = first.record;
    const current = await sweeper.attempt('read the CA configuration', () => api.caConfiguration());
    if (!current) restored = false;
    else if (current.Provider !== record.provider) {
      sweeper.report.problems.push(`CA configuration: the provider is now "${current.Provider}", run ${first.run}'s record says "${record.provider}": it is left as it is, and so are the records (${runs})`);
      restored = false;
    } else {
      const differences = caDifferences(current, record);
      if (differences.length) {
        const kept = Object.fromEntries(Object.entries(current.Config).filter(([k]) => keptAsFound(k)));
        const body = { Provider: record.provider, Config: { ...record.config, ...kept }, ...(record.forceWithoutCrossSigning !== undefined ? { ForceWithoutCrossSigning: record.forceWithoutCrossSigning } : {}) };
        restored = await sweeper.remove(`CA configuration of the agent back to ${differences.join(', ')} (run ${runs})`, async () => {
          const res = await api.http.request({ method: 'PUT', path: '/v1/connect/ca/configuration', json: body });
          return { status: res.status, text: res.text };
        });
      }
    }
  }
  if (restored && !options.keepRecords) {
    for (const r of records) await sweeper.remove(`CA configuration record ${r.key} (run ${r.run})`, () => kv.delete(r.key));
  }
  return { records: records.length, rotations, runs: records.map((r) => r.run) };
}

/** The end-of-run line: how many CA rotations the run made, which no cleanup undoes. */
export function rotationsLine(rotations: number, prefix: string): string {
  if (rotations === 0) return `CA rotations: none made by run ${prefix}`;
  return `CA rotations: ${rotations} made by run ${prefix}; a rotation cannot be undone (the agent's CA now signs with a key the run made; the earlier roots stay trusted until Consul prunes them)`;
}

/**
 * For the run header: where the run records the CA configuration before changing it, and the
 * records other runs left (a run killed before its end), which this run's record copies.
 */
export async function caRecordLines(kv: ConsulKv, prefix: string): Promise<string[]> {
  const lines = [`  CA configuration: recorded in KV ${caRecordKey(prefix)} before the run first changes it, put back at its end`];
  try {
    for (const r of (await caRecords(kv)).filter((r) => r.run !== prefix)) {
      const ttl = r.record?.config.LeafCertTTL;
      lines.push(`  a CA configuration record of run ${r.run} is left on the agent (a run killed before its end, or one going on): it is respected — should this run change the CA, it records and puts back what that record holds${typeof ttl === 'string' ? ` (LeafCertTTL ${ttl})` : ''}; \`stackproof cleanup --prefix ${r.run}\` removes it`);
    }
  } catch (err) {
    lines.push(`  the CA configuration records cannot be listed (${(err as Error).message}): a change to the CA will not go ahead without one`);
  }
  return lines;
}

/** The IDs of the roots the agent lists (GET /v1/agent/connect/ca/roots, the same path in both dialects). */
export async function rootIds(http: HttpClient): Promise<Set<string>> {
  const res = await http.request({ method: 'GET', path: '/v1/agent/connect/ca/roots' });
  if (res.status !== 200) throw new Error(`CA roots answered ${res.status}`);
  return new Set(res.parse(z.object({ Roots: z.array(z.object({ ID: z.string() }).passthrough()).nullable() }).passthrough()).Roots?.map((r) => r.ID) ?? []);
}

/**
 * Where the rotations go through the reference's control listener (no record is made: the control
 * listener is the reference's own), the run's end counts them as the roots the agent lists that it
 * did not list at the start (the reference never prunes a root).
 */
export async function countRotationsByRoots(http: HttpClient, prefix: string): Promise<(report: { notes?: string[] }) => Promise<void>> {
  const before = await rootIds(http).catch(() => undefined);
  return async (report) => {
    const after = before && (await rootIds(http).catch(() => undefined));
    if (!before || !after) return;
    const made = [...after].filter((id) => !before.has(id)).length;
    (report.notes ??= []).push(made ? `CA rotations: ${made} made by run ${prefix} (new roots the agent lists); a rotation cannot be undone` : `CA rotations: none made by run ${prefix}`);
  };
}
