import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { dialectFor } from '../src/config/dialects.ts';
import { HttpClient } from '../src/client/http-client.ts';
import { Redactor } from '../src/client/redact.ts';
import { SecretsApi } from '../src/client/secrets-api.ts';
import { sweepSecrets } from '../src/provision/secrets-sweep.ts';
import { VaultAdminApi } from '../src/provision/vault-admin-api.ts';
import { acceptListMethod } from '../src/reference/http/list-connection.ts';

const LIST_MARKER = 'x-test-list-verb';

/**
 * A target that deletes namespaces as OpenBao does (openbao/openbao vault/namespace_store.go
 * DeleteNamespace): DELETE answers 200 {"status":"in-progress"}, the namespace stays listed until a
 * background job is done, and a parent whose child is still listed is refused with 400.
 */
function backgroundDeleter(goneAfterMs: number | undefined) {
  const listed = new Set(['sp-run1-ns/', 'sp-run1-ns/app/', 'other/']);
  const deletes: { path: string; childListed: boolean }[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const ns = String(req.headers['x-vault-namespace'] ?? '');
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const method = req.headers[LIST_MARKER] !== undefined || (req.method === 'GET' && url.searchParams.get('list') === 'true') ? 'LIST' : req.method;
    if (url.pathname === '/v1/sys/namespaces' && method === 'LIST') {
      const keys = [...listed].filter((p) => p.startsWith(ns) && p !== ns && !p.slice(ns.length, -1).includes('/')).map((p) => p.slice(ns.length));
      return keys.length ? send(200, { data: { keys } }) : send(404, { errors: [] });
    }
    const m = /^\/v1\/sys\/namespaces\/(.+)$/.exec(url.pathname);
    if (m && method === 'DELETE') {
      const path = `${ns}${m[1]}/`;
      const childListed = [...listed].some((p) => p !== path && p.startsWith(path));
      deletes.push({ path, childListed });
      if (childListed) return send(400, { errors: ['unable to delete namespace containing child namespaces'] });
      if (goneAfterMs !== undefined) setTimeout(() => listed.delete(path), goneAfterMs);
      return send(200, { data: { status: 'in-progress' } });
    }
    if (url.pathname === '/v1/sys/mounts' || url.pathname === '/v1/sys/auth') return send(200, { data: {} });
    return send(404, { errors: [] });
  });
  // node:http refuses the LIST verb the sweep sends; the reference's adapter turns it into a marked GET.
  acceptListMethod(server, LIST_MARKER);
  return { server, listed, deletes };
}

describe('sweeping namespaces a target deletes in the background', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  async function sweep(goneAfterMs: number | undefined, namespaceGoneMs: number) {
    const fake = backgroundDeleter(goneAfterMs);
    server = fake.server;
    await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', () => r()));
    const dialect = dialectFor('hashicorp');
    const http = new HttpClient({ baseUrl: `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`, defaultHeaders: { 'X-Vault-Token': 't' }, timeoutMs: 5000, redactor: new Redactor() });
    const api = new SecretsApi(http, dialect);
    const report = await sweepSecrets(api, new VaultAdminApi(api), { namespaces: [''], kvV1Mounts: [], kvV2Mounts: [], cloudAuthMounts: [] }, 'sp-run1', { namespaceGoneMs });
    return { ...fake, report };
  }

  it('deletes the parent only once its child has left the listing, and waits for the parent to leave too', async () => {
    const { report, deletes, listed } = await sweep(600, 10_000);
    expect(report.problems).toEqual([]);
    expect(report.removed).toEqual(['sys/namespaces/sp-run1-ns/app/', 'sys/namespaces/sp-run1-ns/']);
    expect(deletes).toEqual([
      { path: 'sp-run1-ns/app/', childListed: false },
      { path: 'sp-run1-ns/', childListed: false },
    ]);
    expect([...listed], 'the sweep returns when the target no longer lists what it deleted; others are untouched').toEqual(['other/']);
  });

  it('says so, and leaves the parent alone, when a deleted namespace is still listed at the end of the bound', async () => {
    const { report, deletes } = await sweep(undefined, 400);
    expect(deletes.map((d) => d.path), 'the parent is not asked while its child is there').toEqual(['sp-run1-ns/app/']);
    expect(report.problems).toEqual([
      'sys/namespaces/sp-run1-ns/app/: deleted (the target deletes it in the background), but still listed 0 s later',
      'sys/namespaces/sp-run1-ns/: left, as a namespace inside it is still there',
    ]);
  });
});
