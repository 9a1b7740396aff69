import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';
import { isForm } from '../src/reference/secrets/service.ts';

/**
 * How the secrets reference reads a write's body (hashicorp/vault http/handler.go isForm and
 * parseFormRequest, Vault 1.4.0+): a form only under the form media type and when the body does not
 * start with '{' or '['; spec 000 requires no Content-Type, so a JSON body is JSON whatever it says.
 */
describe('isForm', () => {
  it('is a form only for the form media type, parameters and case aside, and a body that does not open a JSON object or array', () => {
    const body = (s: string) => Buffer.from(s);
    expect(isForm('application/x-www-form-urlencoded', body('a=1&b=2'))).toBe(true);
    expect(isForm('Application/X-WWW-Form-Urlencoded; charset=utf-8', body('a=1'))).toBe(true);
    expect(isForm('application/x-www-form-urlencoded', body(''))).toBe(true);
    expect(isForm('application/x-www-form-urlencoded', body('  \n\t{"data":{"a":"1"}}'))).toBe(false);
    expect(isForm('application/x-www-form-urlencoded', body('["x"]'))).toBe(false);
    expect(isForm('application/x-www-form-urlencoded-ish', body('a=1'))).toBe(false);
    expect(isForm(undefined, body('a=1'))).toBe(false);
    expect(isForm('text/plain', body('a=1'))).toBe(false);
  });
});

for (const dialect of ['spec', 'hashicorp'] as const) {
  describe(`a write's body, ${dialect} dialect`, () => {
    let ref: ReferenceWithControl;
    let header: string;
    beforeAll(async () => {
      ref = await startReference({ dialect });
      header = dialect === 'spec' ? 'X-Service-Token' : 'X-Vault-Token';
    });
    afterAll(async () => ref.stop());

    const write = (path: string, body: string, contentType?: string) =>
      fetch(`${ref.secrets.url}/v1/${ref.secrets.kvV1Mount}${path}`, { method: 'POST', headers: { [header]: ref.secrets.token, ...(contentType ? { 'content-type': contentType } : {}) }, body: new TextEncoder().encode(body) });
    const read = async (path: string) => ((await (await fetch(`${ref.secrets.url}/v1/${ref.secrets.kvV1Mount}${path}`, { headers: { [header]: ref.secrets.token } })).json()) as { data: unknown }).data;

    it("reads a JSON body sent with curl --data's form type as JSON (as Vault's own docs send it)", async () => {
      expect((await write('curl-json', '{"password":"s3cr=t&x"}', 'application/x-www-form-urlencoded')).status).toBeLessThan(300);
      expect(await read('curl-json')).toEqual({ password: 's3cr=t&x' });
    });

    it('reads a form as a form, a key given twice with its values joined by a comma (parseFormRequest)', async () => {
      expect((await write('form', 'a=1&b=two&a=3', 'application/x-www-form-urlencoded')).status).toBeLessThan(300);
      expect(await read('form')).toEqual({ a: '1,3', b: 'two' });
    });
  });
}
