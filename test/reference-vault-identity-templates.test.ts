import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';
import { checkStoredTemplate, renderStoredTemplate, storedTemplate } from '../src/reference/secrets/oidc/identity-template.ts';
import type { Entity } from '../src/reference/secrets/identity-store.ts';

/**
 * Scope templates in the hashicorp dialect are parsed as Vault's and OpenBao's sdk/helper/identitytpl
 * PopulateString parses them (JSON mode), with pathOIDCCreateUpdateScope's checks around it; each
 * answer below is what a real OpenBao 2.6.2 gave for the same template (hashicorp/vault has the same
 * parser). The spec dialect keeps to the spec, which gives templates no syntax.
 */
/** Both dialects' token headers: each reference reads its own. */
async function writeScope(ref: ReferenceWithControl, name: string, template: string) {
  const res = await fetch(`${ref.secrets.url}/v1/identity/oidc/scope/${name}`, { method: 'POST', headers: { 'X-Vault-Token': ref.secrets.token, 'X-Service-Token': ref.secrets.token, 'content-type': 'application/json' }, body: JSON.stringify({ template }) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as { errors?: string[] }) : undefined };
}

async function readScope(ref: ReferenceWithControl, name: string): Promise<string> {
  const res = await fetch(`${ref.secrets.url}/v1/identity/oidc/scope/${name}`, { headers: { 'X-Vault-Token': ref.secrets.token, 'X-Service-Token': ref.secrets.token } });
  return ((await res.json()) as { data: { template: string } }).data.template;
}

const refused = (message: string) => ({ status: 400, body: { errors: [message] } });
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Each template with what OpenBao 2.6.2 answered to POST identity/oidc/scope/<name>. */
const OPENBAO_ANSWERS: [string, ReturnType<typeof refused> | 204][] = [
  ['{"a":{"b":{{identity.entity.name}}}}', refused('error parsing template: unbalanced templating characters')],
  ['{"a":"}}"}', refused('error parsing template: unbalanced templating characters')],
  ['{"a":{{identity.entity.nope}}}', refused('error parsing template: no value could be found for one of the template directives')],
  ['{"a":{{{identity.entity.name}}}', refused('error parsing template: no value could be found for one of the template directives')],
  ['{"a":{{identity.groups.names.x.id}}}', refused('error parsing template: string contains groups template directives but no groups were provided')],
  ['{"a":{{identity.entity.aliases.xyz}}}', refused('error parsing template: invalid alias selector')],
  ['{"a":{{time.now.plus}}}', refused('error parsing template: missing time operand')],
  ['{"a":{{time.later}}}', refused('error parsing template: invalid time selector "later"')],
  ['{"a":{{time.now.times.1h}}}', refused('error parsing template: invalid time operator "times"')],
  ['{"a":{{time.now.plus.xx}}}', refused('error parsing template: invalid duration: time: invalid duration "xx"')],
  ['[1]', refused('error parsing template JSON: json: cannot unmarshal array into Go value of type map[string]interface {}')],
  ['"x"', refused('error parsing template JSON: json: cannot unmarshal string into Go value of type map[string]interface {}')],
  ['{"iat":1}', refused('top level key "iat" not allowed. Restricted keys: iat, aud, exp, iss, sub, namespace, nonce, auth_time, at_hash, c_hash')],
  ['{"a":{{time.now}}, "b":{{time.now.plus.1h}}}', 204],
  ['{"a":{{identity.entity.metadata}}}', 204],
  ['{"a":{{identity.entity.aliases.xyz.name}}}', 204],
  ['{"a":{{ identity.entity.name }}}', 204],
  ['{"a":{"b":{{identity.entity.name}} } }', 204],
  ['{"groups":{{identity.entity.groups.names}}}', 204],
];

describe('scope templates, hashicorp dialect: identitytpl PopulateString (JSON mode)', () => {
  let ref: ReferenceWithControl;
  let n = 0;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());

  it('refuses what OpenBao 2.6.2 refused, with its status and message, and takes what it took', async () => {
    for (const [template, answer] of OPENBAO_ANSWERS) {
      const res = await writeScope(ref, `t${++n}`, template);
      if (answer === 204) expect(res, template).toEqual({ status: 204, body: undefined });
      else expect(res, template).toEqual(answer);
    }
  });

  it('decodes a template that is standard base64 when it is written, keeps it decoded, and refuses what the decoding makes of plain text', async () => {
    const template = '{"a":{{identity.entity.name}}}';
    expect((await writeScope(ref, 'b64', b64(template))).status).toBe(204);
    expect(await readScope(ref, 'b64')).toBe(template);
    // "abcd" and "null" are base64 too: OpenBao decodes them and the bytes are no JSON.
    for (const text of ['abcd', 'null']) {
      const res = await writeScope(ref, `plain${++n}`, text);
      expect(res.status, text).toBe(400);
      expect(res.body?.errors?.[0], text).toMatch(/^error parsing template JSON: /);
    }
    expect(storedTemplate(`${b64(template).slice(0, 8)}\n${b64(template).slice(8)}`), 'line breaks are skipped, as Go\'s decoder skips them').toBe(template);
  });

  it('renders each expression as its JSON value, an entity in no group as null', () => {
    const entity: Entity = {
      id: 'e1',
      name: 'alice',
      metadata: { email: 'a@example.com' },
      policies: [],
      groupIds: ['g1', 'g2'],
      aliases: [{ id: 'al1', name: 'alice-up', canonicalId: 'e1', mountAccessor: 'auth_userpass_1', customMetadata: { team: 'x' }, createdAt: '', updatedAt: '' }],
      disabled: false,
      createdAt: '',
      updatedAt: '',
    };
    const template = '{"id":{{identity.entity.id}},"name":{{identity.entity.name}},"email":{{identity.entity.metadata.email}},"missing":{{identity.entity.metadata.nope}},"groups":{{identity.entity.groups.names}},"gids":{{identity.entity.groups.ids}},"alias":{{identity.entity.aliases.auth_userpass_1.name}},"team":{{identity.entity.aliases.auth_userpass_1.custom_metadata.team}},"other":{{identity.entity.aliases.auth_x.name}},"meta":{{identity.entity.metadata}} }';
    checkStoredTemplate(template);
    expect(renderStoredTemplate(template, { entity, groupNames: ['eng', 'ops'] })).toEqual({
      id: 'e1', name: 'alice', email: 'a@example.com', missing: '', groups: ['eng', 'ops'], gids: ['g1', 'g2'], alias: 'alice-up', team: 'x', other: '', meta: { email: 'a@example.com' },
    });
    expect(renderStoredTemplate('{"groups":{{identity.entity.groups.names}}}', { entity: { ...entity, groupIds: [] }, groupNames: [] })).toEqual({ groups: null });
    const now = Math.floor(Date.now() / 1000);
    const times = renderStoredTemplate('{"t":{{time.now.plus.1h}} }', { entity, groupNames: [] }).t as number;
    expect(times - now).toBeGreaterThanOrEqual(3600);
    expect(times - now).toBeLessThan(3610);
  });
});

describe('scope templates, spec dialect: the spec gives templates no syntax', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'spec' });
  });
  afterAll(async () => ref.stop());

  it('takes "}}" after an expression and keeps a base64 template as written', async () => {
    expect((await writeScope(ref, 'nested', '{"a":{"b":{{identity.entity.name}}}}')).status).toBe(204);
    const template = b64('{"a":{{identity.entity.name}}}');
    expect((await writeScope(ref, 'b64', template)).status).toBe(204);
    expect(await readScope(ref, 'b64')).toBe(template);
  });
});
