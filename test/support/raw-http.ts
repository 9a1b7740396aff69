import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  statusLine: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends raw HTTP/1.1 requests one after another on one keep-alive socket, exactly as written (no
 * client normalises the path or the method). Resolves with each response; rejects on a deadline.
 */
export async function rawExchange(url: string, requests: (string | Buffer)[], timeoutMs = 5_000): Promise<RawResponse[]> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
  socket.on('error', () => undefined);
  let buffer = Buffer.alloc(0);
  socket.on('data', (d: Buffer) => (buffer = Buffer.concat([buffer, d])));
  const next = () =>
    new Promise<RawResponse>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no complete response within ${timeoutMs} ms; got ${JSON.stringify(buffer.toString('latin1').slice(0, 300))}`)), timeoutMs);
      const check = () => {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        const lines = head.split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1)) {
          const i = line.indexOf(':');
          if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const body = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
        buffer = buffer.subarray(end + 4 + length);
        socket.off('data', check);
        socket.off('close', check);
        clearTimeout(timer);
        resolve({ status: Number(lines[0]!.split(' ')[1]), statusLine: lines[0]!, headers, body });
      };
      socket.on('data', check);
      socket.on('close', check);
      check();
    });
  const responses: RawResponse[] = [];
  try {
    for (const req of requests) {
      socket.write(req);
      responses.push(await next());
    }
  } finally {
    socket.destroy();
  }
  return responses;
}
