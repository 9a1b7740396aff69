import { describe, expect, it } from 'vitest';
import { productFromOpenApiTitle, schedulerProduct, secretsProduct } from '../src/run/target-product.ts';

/**
 * Which product a hashicorp-dialect target is (issue 53 part 3), from answers as the products give
 * them: OpenBao 2.6.2 and the Vault docs' sample for the OpenAPI title, the plugin catalog's builtin
 * version metadata, Nomad's /v1/agent/self. The real products answer the same in
 * test/openbao-real.test.ts and test/nomad-real.test.ts.
 */
type Answers = Record<string, { status: number; body: unknown }>;
const fetcherOf = (answers: Answers) => async (path: string) => {
  const a = answers[path];
  return a ? { status: a.status, body: typeof a.body === 'string' ? a.body : JSON.stringify(a.body) } : { status: 404, body: '{"errors":[]}' };
};

describe('the secrets product (src/run/target-product.ts)', () => {
  it("tells OpenBao from Vault by the OpenAPI document's title, answered without a token", async () => {
    const bao = fetcherOf({ '/v1/sys/internal/specs/openapi': { status: 200, body: { openapi: '3.0.2', info: { title: 'OpenBao API', version: '2.6.2' }, paths: {} } } });
    expect(await secretsProduct(bao, fetcherOf({}), '2.6.2')).toMatchObject({ key: 'openbao', name: 'OpenBao', version: '2.6.2' });
    const vault = fetcherOf({ '/v1/sys/internal/specs/openapi': { status: 200, body: { openapi: '3.0.2', info: { title: 'HashiCorp Vault API', version: '1.15.2' }, paths: {} } } });
    expect(await secretsProduct(vault, fetcherOf({}), '1.15.2+ent')).toMatchObject({ key: 'vault', name: 'HashiCorp Vault Enterprise', version: '1.15.2+ent' });
    expect(productFromOpenApiTitle('{"info":{"title":"Something Else"}}')).toBeUndefined();
    // The embedded reference served in the hashicorp dialect is no release of either: ranges are not checked on it.
    expect(await secretsProduct(vault, fetcherOf({}), '0.0.0+stackproof-reference')).toMatchObject({ name: 'the stackproof reference (hashicorp dialect)' });
    expect((await secretsProduct(vault, fetcherOf({}), '0.0.0+stackproof-reference')).key).toBeUndefined();
    expect(productFromOpenApiTitle('not json')).toBeUndefined();
  });

  it('falls back to the builtin plugin version metadata with the token, then says it could not tell', async () => {
    const refused = fetcherOf({ '/v1/sys/internal/specs/openapi': { status: 403, body: { errors: ['permission denied'] } } });
    const catalog = (version: string) => fetcherOf({ '/v1/sys/plugins/catalog/auth/userpass': { status: 200, body: { data: { name: 'userpass', builtin: true, version } } } });
    expect(await secretsProduct(refused, catalog('v2.0.1+builtin.bao'), '2.0.1')).toMatchObject({ key: 'openbao', version: '2.0.1' });
    expect(await secretsProduct(refused, catalog('v1.13.0+builtin.vault'), '1.13.0')).toMatchObject({ key: 'vault', name: 'HashiCorp Vault' });
    const unknown = await secretsProduct(refused, fetcherOf({}), '1.11.0');
    expect(unknown.key).toBeUndefined();
    expect(unknown.how).toMatch(/answered 403.*404: neither names the product/);
  });
});

describe('the scheduler product', () => {
  it("reads Nomad's version with its pre-release and metadata from /v1/agent/self, and says why when it cannot", async () => {
    const self = (Version: Record<string, string>) => fetcherOf({ '/v1/agent/self': { status: 200, body: { config: { Version } } } });
    expect(await schedulerProduct(self({ Version: '2.0.5', VersionPrerelease: '', VersionMetadata: '' }))).toMatchObject({ key: 'nomad', name: 'HashiCorp Nomad', version: '2.0.5' });
    expect(await schedulerProduct(self({ Version: '1.10.0', VersionPrerelease: 'beta.1', VersionMetadata: 'ent' }))).toMatchObject({ name: 'HashiCorp Nomad Enterprise', version: '1.10.0-beta.1+ent' });
    const reference = await schedulerProduct(self({ Version: '0.0.0', VersionPrerelease: '', VersionMetadata: 'stackproof-reference' }));
    expect(reference).toMatchObject({ name: 'the stackproof reference (hashicorp dialect)' });
    expect(reference.key).toBeUndefined();
    const refused = await schedulerProduct(fetcherOf({ '/v1/agent/self': { status: 403, body: 'Permission denied' } }));
    expect(refused).toMatchObject({ key: 'nomad' });
    expect(refused.version).toBeUndefined();
    expect(refused.how).toMatch(/answered 403 \(it needs agent:read\)/);
  });
});
