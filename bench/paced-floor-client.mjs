// The open model's floor on this machine: the least any paced generator must do to hold a fixed
// rate with latency measured per request. Every millisecond (the default precision's tick above
// 1,000/s) it starts the requests then due, each on an idle keep-alive connection, and reads each
// answer when it arrives, noting its latency. It keeps no histogram, no per-second buckets, no
// timeouts and no error paths, and its parser knows only the bare server's answer: no real
// generator can cost less. autocannon's overallRate does not pace (it sends each second's quota
// back to back, then sleeps), so its CPU per request is not a pacing figure; this one is.
// argv[2]: {"url", "rate", "seconds", "warmupSeconds"}. Prints {"requests", "cpuMs", "wallMs", "latencyP50Ms"}.
import { connect } from 'node:net';

const job = JSON.parse(process.argv[2]);
const url = new URL(job.url);
const request = Buffer.from(`GET / HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`, 'latin1');
const shared = Buffer.allocUnsafe(64 * 1024);
const idle = [];

let answer;
function open() {
  const conn = { socket: undefined, from: 0, done: undefined };
  conn.socket = connect({
    port: Number(url.port),
    host: url.hostname,
    noDelay: true,
    // The bare server's answers are small and arrive whole: one read, one answer.
    onread: { buffer: shared, callback: () => conn.done() },
  });
  if (answer) conn.done = answer(conn);
  return conn;
}

async function run(seconds) {
  const total = Math.floor(job.rate * seconds);
  const interval = 1000 / job.rate;
  const latencies = new Float64Array(total);
  let answered = 0;
  let i = 0;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const start = performance.now();
  answer = (conn) => () => {
    latencies[answered++] = performance.now() - conn.from;
    idle.push(conn);
    if (answered === total) finish();
  };
  for (const conn of idle) conn.done = answer(conn);
  const tick = () => {
    const now = performance.now();
    while (i < total && start + i * interval <= now) {
      // A stall (the target's or this machine's) can busy them all: one more, written to as it connects.
      const conn = idle.pop() ?? open();
      conn.from = start + i * interval;
      conn.socket.write(request);
      i += 1;
    }
    if (i < total) setTimeout(tick, Math.max(1, Math.ceil(start + i * interval - performance.now())));
  };
  tick();
  await finished;
  return { requests: answered, latencies };
}

// As many connections as the open model opens ahead (a hundredth of a second's arrivals), and room for stalls.
const conns = Array.from({ length: Math.max(64, Math.ceil(job.rate / 100)) }, open);
await Promise.all(conns.map((conn) => new Promise((resolve) => conn.socket.once('connect', resolve))));
idle.push(...conns);
if (job.warmupSeconds) await run(job.warmupSeconds);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const r = await run(job.seconds);
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - t0;
const sorted = r.latencies.sort();
process.stdout.write(`${JSON.stringify({ requests: r.requests, cpuMs: (cpu.user + cpu.system) / 1000, wallMs, latencyP50Ms: sorted[sorted.length >> 1] })}\n`);
process.exit(0);
