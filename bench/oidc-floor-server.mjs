// The floor for OIDC authorize: a bare node:http server doing the least any correct authorize
// endpoint must do for the bench's request, and nothing else (no ACL policies, namespaces, mount
// table, LIST handling or faults). Its ratio to the bare server is the most an implementation in
// Node can reach on this machine; the reference's ratio is read against it.
// argv[2]: {"path", "tokenHeader", "token", "clientId", "redirectUri"}, the request the bench sends.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const seed = JSON.parse(process.argv[2]);
const entityId = 'floor-entity';
const tokens = new Map([[seed.token, { entityId }]]);
const clients = new Map([[seed.clientId, { redirectUris: [seed.redirectUri], entityIds: [entityId] }]]);
const provider = { allowedClientIds: [seed.clientId] };
const grants = new Map();
const GRANT_TTL_MS = 5 * 60 * 1000;
// Codes are sliced from a batch of random bytes, as the reference does: one getrandom per 256 codes.
let batch = Buffer.alloc(0);
let offset = 0;
function code() {
  if (offset + 32 > batch.length) {
    batch = randomBytes(32 * 256);
    offset = 0;
  }
  offset += 32;
  return batch.toString('base64url', offset - 32, offset);
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', 'content-type': 'application/json' });
  res.end(text);
}

const server = createServer((req, res) => {
  const q = req.url.indexOf('?');
  if (req.method !== 'GET' || req.url.slice(0, q) !== seed.path) return send(res, 404, { errors: [] });
  const token = tokens.get(req.headers[seed.tokenHeader]);
  if (!token) return send(res, 403, { errors: ['permission denied'] });
  const p = new URLSearchParams(req.url.slice(q + 1));
  const clientId = p.get('client_id');
  const client = clients.get(clientId);
  if (!client) return send(res, 400, { error: 'invalid_client_id' });
  const redirectUri = p.get('redirect_uri');
  if (!client.redirectUris.includes(redirectUri)) return send(res, 400, { error: 'invalid_redirect_uri' });
  if (!provider.allowedClientIds.includes(clientId)) return send(res, 400, { error: 'unauthorized_client' });
  if (!(p.get('scope') ?? '').split(' ').includes('openid')) return send(res, 400, { error: 'invalid_request' });
  if (p.get('response_type') !== 'code') return send(res, 400, { error: 'unsupported_response_type' });
  if (!client.entityIds.includes(token.entityId)) return send(res, 400, { error: 'access_denied' });
  const c = code();
  // Every code is kept for its five minutes, as the reference keeps them; the expired are at the front.
  const now = Date.now();
  for (const [k, g] of grants) {
    if (g.expiresAt >= now) break;
    grants.delete(k);
  }
  grants.set(c, { clientId, redirectUri, entityId: token.entityId, challenge: p.get('code_challenge'), expiresAt: now + GRANT_TTL_MS });
  send(res, 200, { code: c, state: p.get('state') ?? '' });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
