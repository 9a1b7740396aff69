// The fan-out's floor on this machine: what the goal cell's bytes alone cost, with no broker, no
// registrations, no parsing and no latency kept. A bare writer process (stream-floor-server.mjs)
// sends frames of the size the real cells delivered to the goal's number of streams at the goal's
// rate, batched as the reference batches them; this process reads them with node:http (the
// cheapest reader measured here) and only counts newlines. If this cannot keep up, no broker or
// subscriber code can on this machine.
import { get, type ClientRequest } from 'node:http';
import { processCpuMicros } from './process-cpu.ts';
import { benchScript, startServerProcess } from './server-process.ts';

export interface FloorResult {
  wanted: number;
  delivered: number;
  megabytesPerSecond: number;
  writerCores: number;
  readerCores: number;
}

const WARMUP_MS = 1_000;

export async function streamFloor(o: { streams: number; rate: number; frameBytes: number; gapMs: number; seconds: number }): Promise<FloorResult> {
  const { proc: writer, info } = await startServerProcess([benchScript('stream-floor-server.mjs'), String(o.frameBytes), String(o.rate), String(o.gapMs)]);
  const requests: ClientRequest[] = [];
  try {
    const url = (info as { url: string }).url;
    let frames = 0;
    let bytes = 0;
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) frames += 1;
    };
    for (let i = 0; i < o.streams; i++) {
      const req = get(url, { agent: false }, (res) => res.on('data', count));
      req.on('error', () => undefined);
      requests.push(req);
    }
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    const [f0, b0, w0, r0, t0] = [frames, bytes, processCpuMicros(writer.pid), process.cpuUsage(), performance.now()];
    await new Promise((r) => setTimeout(r, o.seconds * 1000));
    const secs = (performance.now() - t0) / 1000;
    const reader = process.cpuUsage(r0);
    return {
      wanted: o.streams * o.rate,
      delivered: (frames - f0) / secs,
      megabytesPerSecond: (bytes - b0) / secs / 1e6,
      writerCores: (processCpuMicros(writer.pid) - w0) / 1e6 / secs,
      readerCores: (reader.user + reader.system) / 1e6 / secs,
    };
  } finally {
    for (const r of requests) r.destroy();
    writer.kill('SIGTERM');
  }
}
