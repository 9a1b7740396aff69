import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';

/**
 * Keys that hold "..": Vault's storage refuses them (hashicorp/vault sdk/logical/storage_view.go
 * storageView.SanityCheck, logical.ErrRelativePath "relative paths not supported"), and each
 * operation of a version 1 key-value mount (hashicorp/vault-plugin-secrets-kv passthrough.go) brings
 * that refusal to the client with its own status, through vault/request_handling.go and
 * sdk/logical/response_util.go RespondErrorCommon (see kv-v1.ts relativePathRefusal). A version 2
 * mount never hands such a key to storage (it stores keys salted and encrypted), so Vault accepts
 * it there; the spec says nothing of key characters, so the spec dialect accepts it everywhere.
 */
interface Answer {
  status: number;
  body: string;
}

async function call(ref: RunningReference, header: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${ref.secrets.url}/v1/${path}`, {
    method,
    headers: { [header]: ref.secrets.token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

/** go-multierror's text for one error, as Vault's core wraps a request's error. */
const oneError = (message: string) => `1 error occurred:\n\t* ${message}\n\n`;

describe('Vault storage keys with ".." in the hashicorp dialect (version 1 mount at secret/)', () => {
  let ref: RunningReference;
  const vault = (method: string, path: string, body?: unknown) => call(ref, 'X-Vault-Token', method, path, body);
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());

  it('a read answers 400 "read failed: relative paths not supported" (passthrough.go handleReadOrRenew; RespondErrorCommon ErrRelativePath)', async () => {
    const res = await vault('GET', 'secret/a..b');
    expect([res.status, JSON.parse(res.body)]).toEqual([400, { errors: [oneError('read failed: relative paths not supported')] }]);
  });

  it('a write answers 500 "internal error": the existence check wraps ErrRelativePath (passthrough.go handleExistenceCheck; request_handling.go CheckToken)', async () => {
    const res = await vault('PUT', 'secret/a..b', { k: 'v' });
    expect([res.status, JSON.parse(res.body)]).toEqual([500, { errors: [oneError('internal error')] }]);
    // The refusal comes before the engine's own checks: an empty body is refused the same way.
    const empty = await vault('POST', 'secret/..x', {});
    expect([empty.status, JSON.parse(empty.body)]).toEqual([500, { errors: [oneError('internal error')] }]);
  });

  it('a delete answers 400 "relative paths not supported" (passthrough.go handleDelete)', async () => {
    const res = await vault('DELETE', 'secret/dir/x..');
    expect([res.status, JSON.parse(res.body)]).toEqual([400, { errors: [oneError('relative paths not supported')] }]);
  });

  it('a list answers 400 "relative paths not supported" (passthrough.go handleList)', async () => {
    const res = await vault('LIST', 'secret/a..b/');
    expect([res.status, JSON.parse(res.body)]).toEqual([400, { errors: [oneError('relative paths not supported')] }]);
    const viaQuery = await vault('GET', 'secret/x..?list=true');
    expect([viaQuery.status, JSON.parse(viaQuery.body)]).toEqual([400, { errors: [oneError('relative paths not supported')] }]);
  });

  it('keys with single dots and non-ASCII letters stay accepted (SanityCheck looks for ".." only; cleanhttp refuses only non-printable characters)', async () => {
    for (const key of ['a.b', '.a/b.', 'é.日本/🔑']) {
      expect((await vault('PUT', `secret/${encodeURI(key)}`, { k: key })).status, key).toBe(204);
      expect(JSON.parse((await vault('GET', `secret/${encodeURI(key)}`)).body).data, key).toEqual({ k: key });
    }
  });

  it('a version 2 mount accepts ".." keys, as Vault does (path_data.go keys storage by salted and encrypted names)', async () => {
    const write = await vault('PUT', 'kv-v2/data/a..b', { data: { k: 'v' } });
    expect(write.status).toBe(200);
    const read = await vault('GET', 'kv-v2/data/a..b');
    expect([read.status, JSON.parse(read.body).data.data]).toEqual([200, { k: 'v' }]);
  });
});

describe('Vault storage keys with ".." in the spec dialect', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'spec' });
  });
  afterAll(async () => ref.stop());

  it('the spec says nothing of key characters: "a..b" is written, read, listed and deleted like any key', async () => {
    const spec = (method: string, path: string, body?: unknown) => call(ref, 'X-Service-Token', method, path, body);
    expect((await spec('PUT', 'secret/d/a..b', { k: 'v' })).status).toBe(204);
    expect(JSON.parse((await spec('GET', 'secret/d/a..b')).body).data).toEqual({ k: 'v' });
    expect(JSON.parse((await spec('LIST', 'secret/d/')).body).data.keys).toEqual(['a..b']);
    expect((await spec('DELETE', 'secret/d/a..b')).status).toBe(204);
    expect((await spec('GET', 'secret/d/a..b')).status).toBe(404);
  });
});
