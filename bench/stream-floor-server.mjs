// The fan-out floor's writer: an event-stream server with no broker. Every stream gets the same
// frames, each exactly FRAME_BYTES long (newline included), RATE a second, written to all streams
// together every GAP_MS as the reference's fan-out batches them. Prints its URL, then serves until
// SIGTERM. Arguments: FRAME_BYTES RATE GAP_MS.
import { createServer } from 'node:http';

const [frameBytes, rate, gapMs] = process.argv.slice(2).map(Number);
const streams = new Set();
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{}\n');
  streams.add(res);
  req.on('close', () => streams.delete(res));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/` })}\n`));

let index = 0;
const frame = () => {
  index += 1;
  const head = `{"Index":${index},"Events":[{"Topic":"Job","Payload":"`;
  return Buffer.from(`${head}${'x'.repeat(Math.max(0, frameBytes - head.length - 5))}"}]}\n`);
};
let pending = [];
let owed = 0;
let last = performance.now();
let lastWrite = last;
// A 1 ms timer makes the frames due at RATE a second, and every GAP_MS they go out.
setInterval(() => {
  const now = performance.now();
  owed += ((now - last) * rate) / 1000;
  last = now;
  for (; owed >= 1; owed -= 1) pending.push(frame());
  if (pending.length && now - lastWrite >= gapMs) {
    lastWrite = now;
    const chunk = pending.length === 1 ? pending[0] : Buffer.concat(pending);
    pending = [];
    for (const res of streams) res.write(chunk);
  }
}, 1);
process.on('SIGTERM', () => process.exit(0));
