// A second yardstick: the same answer as bench/bare-server.mjs, written by a raw TCP server that
// only counts request heads ("\r\n\r\n") and writes a canned response for each. It does far less
// per request than node:http, so a generator's highest rate against it is the generator's own
// limit, not the server's. GET requests without bodies only (what the generator bench sends).
import { createServer } from 'node:net';

const body = JSON.stringify({ ok: true });
const answer = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`);
const server = createServer((socket) => {
  socket.setNoDelay(true);
  // How many bytes of a head terminator ("\r\n\r\n") the last chunk ended with.
  let matched = 0;
  socket.on('data', (chunk) => {
    let heads = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (c === (matched % 2 === 0 ? 13 : 10)) {
        matched += 1;
        if (matched === 4) {
          heads += 1;
          matched = 0;
        }
      } else matched = c === 13 ? 1 : 0;
    }
    if (heads === 1) socket.write(answer);
    else if (heads > 1) socket.write(Buffer.concat(Array.from({ length: heads }, () => answer)));
  });
  socket.on('error', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
