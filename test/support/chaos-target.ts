import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request } from 'undici';

/** Ways a target can misbehave on the requests it picks. */
export const CHAOS_MODES = [
  'never-answer',
  'headers-then-stall',
  'slow-body',
  'reset',
  'invalid-json',
  'huge-body',
  'wrong-content-type',
  'random-5xx',
  'stream-close-early',
  'split-frames',
] as const;
export type ChaosMode = (typeof CHAOS_MODES)[number];

export interface ChaosTarget {
  url: string;
  close(): Promise<void>;
}

/**
 * A hostile target: a proxy in front of a real implementation that misbehaves, in one chosen way,
 * on the requests whose path matches `affected`, and passes every other request through untouched.
 */
export async function startChaosTarget(upstream: string, mode: ChaosMode, affected: RegExp): Promise<ChaosTarget> {
  const held = new Set<ServerResponse>();
  const forward = async (req: IncomingMessage, res: ServerResponse, body: Buffer, transform?: (text: string, headers: Record<string, string>) => void) => {
    const upstreamRes = await request(`${upstream}${req.url}`, {
      method: req.method as 'GET',
      headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(k))) as Record<string, string>,
      body: body.length ? body : undefined,
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(upstreamRes.headers)) if (v !== undefined && !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) headers[k] = String(v);
    if (transform) {
      transform(await upstreamRes.body.text(), headers);
      return;
    }
    res.writeHead(upstreamRes.statusCode, headers);
    for await (const chunk of upstreamRes.body) res.write(chunk);
    res.end();
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const hit = affected.test(req.url ?? '');
      const run = async () => {
        if (!hit) return forward(req, res, body);
        switch (mode) {
          case 'never-answer':
            held.add(res);
            return;
          case 'headers-then-stall':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.flushHeaders();
            held.add(res);
            return;
          case 'slow-body':
            return forward(req, res, body, (text, headers) => {
              res.writeHead(200, headers);
              let i = 0;
              const timer = setInterval(() => {
                if (res.destroyed || i >= text.length) {
                  clearInterval(timer);
                  if (!res.destroyed) res.end();
                  return;
                }
                res.write(text[i++]!);
              }, 200);
            });
          case 'reset':
            req.socket.destroy();
            return;
          case 'invalid-json':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{"ActiveRootID": "abc", "Roots": [ {not json');
            return;
          case 'huge-body': {
            res.writeHead(200, { 'content-type': 'application/json' });
            const mb = Buffer.alloc(1024 * 1024, 'x');
            let sent = 0;
            const pump = () => {
              while (sent < 20 && !res.destroyed) {
                sent += 1;
                if (!res.write(mb)) return void res.once('drain', pump);
              }
              if (!res.destroyed) res.end();
            };
            pump();
            return;
          }
          case 'wrong-content-type':
            return forward(req, res, body, (text, headers) => {
              res.writeHead(200, { ...headers, 'content-type': 'text/html' });
              res.end(text);
            });
          case 'random-5xx':
            if (Math.random() < 0.5) {
              res.writeHead(Math.random() < 0.5 ? 500 : 503, { 'content-type': 'text/plain' });
              res.end('upstream trouble');
              return;
            }
            return forward(req, res, body);
          case 'stream-close-early':
            // Send the stream's first line, then end it long before the client is done.
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{}\n');
            return;
          case 'split-frames':
            return forwardSplit(upstream, req, res);
        }
      };
      run().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of held) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Passes a stream through, re-chunked: lines split across writes and two lines in one write. */
async function forwardSplit(upstream: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const upstreamRes = await request(`${upstream}${req.url}`, { method: 'GET', headers: { authorization: String(req.headers.authorization ?? '') } });
  res.writeHead(upstreamRes.statusCode, { 'content-type': String(upstreamRes.headers['content-type'] ?? 'application/json') });
  let pending = '';
  let toggle = false;
  req.on('close', () => upstreamRes.body.destroy());
  try {
    for await (const chunk of upstreamRes.body) {
      pending += (chunk as Buffer).toString('utf8');
      // Hold back until there are two lines, then send one and a half, then the rest.
      const lines = pending.split('\n');
      if (lines.length < 3) continue;
      const whole = lines.slice(0, -1).join('\n') + '\n';
      pending = lines[lines.length - 1]!;
      const cut = toggle ? Math.floor(whole.length / 2) : whole.length;
      toggle = !toggle;
      res.write(whole.slice(0, cut));
      await new Promise((r) => setTimeout(r, 5));
      if (cut < whole.length) res.write(whole.slice(cut));
    }
  } catch {
    // the client went away
  }
  if (pending) res.write(pending);
  res.end();
}
