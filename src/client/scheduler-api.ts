import { TargetError } from './target-error.ts';
import { z } from 'zod';
import { tokenHeaders, type Dialect } from '../config/dialects.ts';
import type { HttpClient, HttpResponse, StreamResult, StreamState } from './http-client.ts';

export interface SchedulerCallOptions {
  /** Another ACL token instead of the profile's; null sends none. */
  token?: string | null;
}

type Query = Record<string, string | number | boolean | undefined | string[]>;

/** The scheduler's event stream and client endpoints (spec 002). */
export class SchedulerApi {
  constructor(
    readonly http: HttpClient,
    readonly dialect: Dialect,
    readonly nodeId?: string,
  ) {}

  private auth(options: SchedulerCallOptions): { headers: Record<string, string>; bare: boolean } {
    if (options.token === undefined) return { headers: {}, bare: false };
    return { headers: options.token === null ? {} : tokenHeaders(this.dialect.scheduler.token, options.token), bare: true };
  }

  private nodeQuery(): Record<string, string> {
    return this.nodeId ? { node_id: this.nodeId } : {};
  }

  readMetadata(query: Query = {}, options: SchedulerCallOptions = {}): Promise<HttpResponse> {
    return this.http.request({ method: 'GET', path: '/v1/client/metadata', query: { ...this.nodeQuery(), ...query }, ...this.auth(options) });
  }

  updateMetadata(meta: Record<string, string | null>, query: Query = {}, options: SchedulerCallOptions = {}): Promise<HttpResponse> {
    return this.http.post('/v1/client/metadata', { Meta: meta }, { query: { ...this.nodeQuery(), ...query }, ...this.auth(options) });
  }

  stats(query: Query = {}, options: SchedulerCallOptions = {}): Promise<HttpResponse> {
    return this.http.get('/v1/client/stats', { ...this.nodeQuery(), ...query }, this.auth(options));
  }

  allocStats(alloc: string, options: SchedulerCallOptions = {}): Promise<HttpResponse> {
    return this.http.get(`/v1/client/allocation/${alloc}/stats`, undefined, this.auth(options));
  }

  gcAlloc(alloc: string, options: SchedulerCallOptions = {}): Promise<HttpResponse> {
    return this.http.get(`/v1/client/allocation/${alloc}/gc`, undefined, this.auth(options));
  }

  gcAll(query: Query = {}, options: SchedulerCallOptions = {}): Promise<HttpResponse> {
    return this.http.get('/v1/client/gc', { ...this.nodeQuery(), ...query }, this.auth(options));
  }

  fs(op: 'cat' | 'readat' | 'ls' | 'stat' | 'logs' | 'stream', alloc: string, query: Query = {}, options: SchedulerCallOptions = {}): Promise<HttpResponse> {
    return this.http.get(`/v1/client/fs/${op}/${alloc}`, query, this.auth(options));
  }

  /**
   * An fs request with the query string sent exactly as given: percent-encodings such as '%2e%2e'
   * reach the target as they are instead of being encoded again. Read as a stream, so that a
   * stream or logs answer that should not have succeeded still ends.
   */
  fsRaw(op: 'cat' | 'readat' | 'ls' | 'stat' | 'logs' | 'stream', alloc: string, rawQuery: string, options: { maxMs: number } & Awaiting & SchedulerCallOptions): Promise<StreamResult> {
    return awaited(this.http.stream({ method: 'GET', path: `/v1/client/fs/${op}/${alloc}?${rawQuery}`, ...this.auth(options) }, { maxMs: options.maxMs, maxBytes: 4 * 1024 * 1024 }), options);
  }

  /** A streaming fs answer (stream, or logs with follow). */
  fsStream(op: 'stream' | 'logs', alloc: string, query: Query, options: { maxMs: number; until?: (s: StreamState) => boolean } & Awaiting & SchedulerCallOptions): Promise<StreamResult> {
    return awaited(this.http.stream({ method: 'GET', path: `/v1/client/fs/${op}/${alloc}`, query, ...this.auth(options) }, { maxMs: options.maxMs, until: options.until }), options);
  }

  events(query: Query, options: { maxMs: number; until?: (s: StreamState) => boolean } & Awaiting & SchedulerCallOptions): Promise<StreamResult> {
    return awaited(this.http.stream({ method: 'GET', path: '/v1/event/stream', query, ...this.auth(options) }, options), options);
  }
}

/**
 * A stream read that waits for the product's own signal (its end, or what `until` looks for):
 * `awaiting` names it. Reaching maxMs first is then no verdict on the product but a bound run out,
 * ERROR "waited N s for <awaiting>" (a TargetError), never the empty or partial answer a rule would
 * judge. Without `awaiting` the deadline is part of the rule (a subscription that must stay quiet).
 */
interface Awaiting {
  awaiting?: string;
}

async function awaited(result: Promise<StreamResult>, options: { maxMs: number } & Awaiting): Promise<StreamResult> {
  const res = await result;
  if (options.awaiting && res.stoppedBy === 'deadline' && res.status < 400) {
    throw new TargetError('timeout', `waited ${(options.maxMs / 1000).toFixed(1)} s for ${options.awaiting} (answered ${res.status}, ${res.values.length} value(s) read): the bound ran out before the product's signal; --time-scale raises it for a slow target`);
  }
  return res;
}

const fileInfo = z.object({ Name: z.string(), IsDir: z.boolean(), Size: z.number().int(), FileMode: z.string(), ModTime: z.string() });
export const fileInfoSchema = fileInfo;
export const fileListSchema = z.array(fileInfo);

export const eventSchema = z.object({
  Topic: z.string(),
  Type: z.string(),
  Key: z.string(),
  Namespace: z.string(),
  FilterKeys: z.array(z.string()).nullable(),
  Index: z.number().int(),
  Payload: z.record(z.string(), z.unknown()),
});
export const frameSchema = z.object({ Index: z.number().int(), Events: z.array(eventSchema) });
export type EventFrame = z.infer<typeof frameSchema>;

export const streamFrameSchema = z.object({ File: z.string().optional(), Offset: z.number().int().optional(), Data: z.string().optional(), FileEvent: z.string().optional() });

const diskStat = z.object({ Available: z.number().int(), Device: z.string(), InodesUsedPercent: z.number(), Mountpoint: z.string(), Size: z.number().int(), Used: z.number().int(), UsedPercent: z.number() });
/** Nanosecond timestamps pass 2^53, beyond what a JSON number keeps exactly: only their size is checked. */
const nanoTimestamp = z.number().nonnegative();

/** Client stats, with the CPU entries' fields and DeviceStats left to the schemas below (rules of their own). */
export const clientStatsSchema = z.object({
  AllocDirStats: diskStat,
  CPU: z.array(z.unknown()),
  CPUTicksConsumed: z.number(),
  DeviceStats: z.unknown(),
  DiskStats: z.array(diskStat),
  Memory: z.object({ Available: z.number().int(), Free: z.number().int(), Total: z.number().int(), Used: z.number().int() }),
  Timestamp: nanoTimestamp,
  Uptime: z.number().int(),
});

/** Spec 002: CPU | array of {CPU string, Idle, System, Total, User numbers}. */
export const clientStatsCpuSchema = z.object({ CPU: z.array(z.object({ CPU: z.string(), Idle: z.number(), System: z.number(), Total: z.number(), User: z.number() })) });

const statValue = z.object({ Desc: z.string(), IntNumeratorVal: z.number().int(), Unit: z.string() });
/** Spec 002: DeviceStats | array of {Name, Type, Vendor strings; InstanceStats map instance id to {Stats, Summary, Timestamp}}. */
export const clientStatsDevicesSchema = z.object({
  DeviceStats: z.array(
    z.object({
      Name: z.string(),
      Type: z.string(),
      Vendor: z.string(),
      InstanceStats: z.record(z.string(), z.object({ Stats: z.object({ Attributes: z.record(z.string(), statValue), Nested: z.unknown() }), Summary: statValue, Timestamp: z.string() })),
    }),
  ),
});

const cpuStats = z.object({ Measured: z.array(z.string()), Percent: z.number(), SystemMode: z.number(), ThrottledPeriods: z.number(), ThrottledTime: z.number(), TotalTicks: z.number(), UserMode: z.number() });
const memStats = z.object({ Cache: z.number().int(), KernelMaxUsage: z.number().int(), KernelUsage: z.number().int(), MaxUsage: z.number().int(), RSS: z.number().int(), Swap: z.number().int(), Measured: z.array(z.string()) });
export const allocStatsSchema = z.object({
  ResourceUsage: z.object({ CpuStats: cpuStats, MemoryStats: memStats }),
  Tasks: z.record(z.string(), z.object({ Pids: z.unknown(), ResourceUsage: z.object({ CpuStats: cpuStats, MemoryStats: memStats }), Timestamp: nanoTimestamp })),
  Timestamp: nanoTimestamp,
});
