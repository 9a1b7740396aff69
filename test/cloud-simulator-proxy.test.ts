import { generateKeyPairSync, randomUUID, X509Certificate } from 'node:crypto';
import { connect } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudProxy } from '../src/cloud/cloud-proxy.ts';
import { CloudSimulator, SIMULATED_HOSTS } from '../src/cloud/simulator.ts';
import { hostCertificate, loadCertificateAuthority, newCertificateAuthority, type PemPair } from '../src/cloud/tls-certificates.ts';

/**
 * The cloud simulator as a product's Azure plugin reaches it: through its proxy, over TLS with the
 * run authority's certificate, answering as login.microsoftonline.com and management.azure.com
 * what the plugin asks (test/openbao-cloudauth.test.ts has the real plugin ask it).
 */
describe('the cloud simulator behind its proxy', () => {
  const control = randomUUID();
  let authority: PemPair;
  let simulator: CloudSimulator;
  let proxy: CloudProxy;
  let trusted: ProxyAgent;
  beforeAll(async () => {
    authority = await newCertificateAuthority();
    simulator = await CloudSimulator.create(control);
    proxy = await CloudProxy.start(simulator, await hostCertificate(authority, SIMULATED_HOSTS));
    simulator.baseUrl = proxy.url;
    trusted = new ProxyAgent({ uri: proxy.url, requestTls: { ca: authority.certPem } });
  });
  afterAll(async () => {
    await trusted?.close();
    await proxy?.close();
  });

  const get = async (url: string, headers: Record<string, string> = {}, dispatcher = trusted) => {
    const res = await request(url, { dispatcher, headers });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  };

  it('publishes the tenant as Azure AD does, and its tokens verify against what discovery names', async () => {
    const tenant = simulator.tenantId;
    const discovery = await get(`https://login.microsoftonline.com/${tenant}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(discovery.body).toMatchObject({ issuer: `https://sts.windows.net/${tenant}/`, jwks_uri: `https://login.microsoftonline.com/${tenant}/discovery/keys` });
    const machine = simulator.addMachine({ name: 'vm-one' });
    const jwt = (await simulator.mint(machine.name, 'https://resource.example/'))!;
    const keys = (await get(discovery.body.jwks_uri as string)).body as { keys: unknown[] };
    expect(keys.keys.length).toBe(1);
    const { payload } = await jwtVerify(jwt, async (header) => {
      const set = createRemoteJWKSet(new URL(`${proxy.url}/${tenant}/discovery/keys`));
      return set(header);
    }, { issuer: discovery.body.issuer as string, audience: 'https://resource.example/' });
    expect(payload).toMatchObject({ oid: machine.principal_id, xms_mirid: `/subscriptions/${machine.subscription_id}/resourcegroups/${machine.resource_group}/providers/Microsoft.Compute/virtualMachines/vm-one` });
    expect((await get(`https://login.microsoftonline.com/${randomUUID()}/.well-known/openid-configuration`)).body).toMatchObject({ error: 'invalid_tenant' });
  });

  it("answers MSAL's discovery and a client-credentials grant, whose token Resource Manager then takes", async () => {
    const tenant = simulator.tenantId;
    const instance = await get(`https://login.microsoftonline.com/common/discovery/instance?api-version=1.1&authorization_endpoint=${encodeURIComponent(`https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`)}`);
    expect(instance.body.tenant_discovery_endpoint).toBe(`https://login.microsoftonline.com/${tenant}/v2.0/.well-known/openid-configuration`);
    const v2 = await get(instance.body.tenant_discovery_endpoint as string);
    expect(v2.body.token_endpoint).toBe(`https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`);
    const grant = async (form: Record<string, string>) => {
      const res = await request(v2.body.token_endpoint as string, { method: 'POST', dispatcher: trusted, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    const creds = { grant_type: 'client_credentials', client_id: 'app', client_secret: 's3cret', scope: 'https://management.core.windows.net//.default' };
    expect((await grant({ ...creds, client_secret: '' })).status, 'a grant without a secret is refused').toBe(401);
    expect((await grant({ ...creds, grant_type: 'password' })).body.error).toBe('unsupported_grant_type');
    const token = await grant(creds);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });

    const vmss = simulator.addMachine({ kind: 'vmss', name: 'scale-one', location: 'eastus' });
    const path = `https://management.azure.com/subscriptions/${vmss.subscription_id}/resourceGroups/${vmss.resource_group}/providers/Microsoft.Compute/virtualMachineScaleSets/scale-one`;
    const bearer = { authorization: `Bearer ${token.body.access_token as string}` };
    expect((await get(`${path}?api-version=2022-11-01`)).body, 'no bearer token').toMatchObject({ error: { code: 'AuthenticationFailed' } });
    expect((await get(`${path}?api-version=2022-11-01`, { authorization: 'Bearer forged' })).body).toMatchObject({ error: { code: 'InvalidAuthenticationToken' } });
    expect((await get(path, bearer)).body, 'no api-version').toMatchObject({ error: { code: 'MissingApiVersionParameter' } });
    const found = await get(`${path}?api-version=2022-11-01`, bearer);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ name: 'scale-one', location: 'eastus', identity: { principalId: vmss.principal_id } });
    const asVm = await get(`${path.replace('virtualMachineScaleSets', 'virtualMachines')}?api-version=2022-11-01`, bearer);
    expect(asVm.status, 'a scale set is not a virtual machine').toBe(404);
  });

  it('serves each host only its own routes, and the control routes only on the plain listener with the token', async () => {
    expect((await get(`https://management.azure.com/${simulator.tenantId}/.well-known/openid-configuration`)).status).toBe(404);
    expect((await get(`https://login.microsoftonline.com/subscriptions/x/resourceGroups/y/providers/Microsoft.Compute/virtualMachines/z?api-version=1`)).status).toBe(404);
    const overTls = await request('https://login.microsoftonline.com/simulator/machines', { method: 'POST', dispatcher: trusted, headers: { authorization: `Bearer ${control}` }, body: '{}' });
    await overTls.body.dump();
    expect(overTls.statusCode, 'no minting through the proxy').toBe(404);
    const wrong = await request(`${proxy.url}/simulator/machines`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{}' });
    await wrong.body.dump();
    expect(wrong.statusCode).toBe(403);
    const right = await request(`${proxy.url}/simulator/machines`, { method: 'POST', headers: { authorization: `Bearer ${control}` }, body: '{"name":"vm-two"}' });
    expect(((await right.body.json()) as { name: string }).name).toBe('vm-two');
  });

  it('refuses a CONNECT to any other host, and records what arrived', async () => {
    const { port } = new URL(proxy.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(proxy.arrivals()).toContainEqual({ target: 'example.com:443', taken: false });
    expect(proxy.arrivals()).toContainEqual({ target: 'login.microsoftonline.com:443', taken: true });
  });
  // A client that does not trust the authority and says so with a TLS alert (Go's, as the plugin is)
  // is met in test/openbao-cloudauth.test.ts: Node's client checks the chain only after the handshake.
});

describe('the run authority', () => {
  it('signs a certificate for the simulated hosts that verifies against it', async () => {
    const authority = await newCertificateAuthority();
    const host = await hostCertificate(authority, SIMULATED_HOSTS);
    const ca = new X509Certificate(authority.certPem);
    const leaf = new X509Certificate(host.certPem);
    expect(ca.ca).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    for (const h of SIMULATED_HOSTS) expect(leaf.checkHost(h)).toBe(h);
    expect(leaf.checkHost('example.com')).toBeUndefined();
    expect(new Date(leaf.validFrom).getTime()).toBeLessThan(Date.now());
  });

  it('is read back as kept, and refuses a key it cannot sign with', async () => {
    const authority = await newCertificateAuthority(365);
    await expect(loadCertificateAuthority(authority)).resolves.toBeDefined();
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await expect(loadCertificateAuthority({ certPem: authority.certPem, keyPem: rsa })).rejects.toThrow(/ECDSA P-256 private key in PEM \(a rsa key\)/);
    await expect(loadCertificateAuthority({ certPem: 'not a certificate', keyPem: authority.keyPem })).rejects.toThrow(/not a PEM certificate/);
  });
});
