import fc from 'fast-check';
import type { DiffEndpoint, SymbolicRequest } from '../request-template.ts';
import { fixed, generated, MANAGEMENT, notAString, tokenClasses, unknownField, unknownName } from './catalog-kit.ts';

/**
 * The endpoints of spec 001 (the agent's connect endpoints) and the requests the diff sends to each.
 * Fixture symbols (src/diff/fixtures/mesh.ts): `svc`, the run's destination service; `src`, a
 * source allowed to it; `denied`, a source denied; `other`, a service only `tokOther` may write;
 * `trustDomain`, the cluster's. Tokens: `tokSvc` (service:write on svc), `tokOther` (on other only).
 */

const uri = (service: string) => `spiffe://@{trustDomain}/ns/default/dc/dc1/svc/${service}`;
const authorize = (json: unknown, extra: Partial<SymbolicRequest> = {}): SymbolicRequest => ({ method: 'POST', path: '/v1/agent/connect/authorize', json, token: MANAGEMENT, ...extra });
const allowed = { Target: '@{svc}', ClientCertURI: uri('@{src}'), ClientCertSerial: '01:02:03:04' };

export const MESH_ENDPOINTS: DiffEndpoint[] = [
  {
    system: 'mesh',
    method: 'POST',
    path: '/v1/agent/connect/authorize',
    statements: ['mesh.authorize-request.target', 'mesh.authorize-request.client-cert-uri', 'mesh.authorize-request.client-cert-serial', 'mesh.authorize-response.authorized', 'mesh.authorize-response.reason', 'mesh.endpoints.authorize-row', 'mesh.endpoints.json', 'mesh.does.permissions-deny'],
    requests: [
      fixed('ok', 'a source an intention allows', authorize(allowed)),
      fixed('ok', 'a source an intention denies', authorize({ ...allowed, ClientCertURI: uri('@{denied}') })),
      generated('ok', 'a source no intention names (the ACL default decides)', unknownName, (n) => authorize({ ...allowed, ClientCertURI: uri(`@{prefix}-${n}`) })),
      fixed('missing-field', 'no Target', authorize({ ClientCertURI: allowed.ClientCertURI, ClientCertSerial: allowed.ClientCertSerial })),
      fixed('missing-field', 'no ClientCertURI', authorize({ Target: '@{svc}', ClientCertSerial: allowed.ClientCertSerial })),
      fixed('missing-field', 'no ClientCertSerial', authorize({ Target: '@{svc}', ClientCertURI: allowed.ClientCertURI })),
      fixed('missing-field', 'no body', { method: 'POST', path: '/v1/agent/connect/authorize', token: MANAGEMENT }),
      generated('unknown-field', 'a field the request does not have', unknownField, (f) => authorize({ ...allowed, [f]: 'x' })),
      generated('wrong-type', 'Target not a string', notAString, (v) => authorize({ ...allowed, Target: v })),
      fixed('wrong-type', 'a body that is not JSON', { method: 'POST', path: '/v1/agent/connect/authorize', body: '{"Target":', headers: { 'content-type': 'application/json' }, token: MANAGEMENT }),
      generated('bad-value', 'a ClientCertURI that is not a SPIFFE ID', fc.constantFrom('http://example.com/web', 'spiffe://', 'not a uri', 'spiffe://x/y'), (u) => authorize({ ...allowed, ClientCertURI: u })),
      fixed('bad-value', "a ClientCertURI of an agent, not a service", authorize({ ...allowed, ClientCertURI: 'spiffe://@{trustDomain}/agent/client/dc/dc1/id/@{prefix}-node' })),
      ...tokenClasses(authorize(allowed), { symbol: 'tokOther', what: 'a token with service:write on another service only' }),
      fixed('ok', 'a token with service:write on the target', authorize(allowed, { token: { kind: 'fixture', symbol: 'tokSvc' } })),
      fixed('wrong-method', 'GET', { method: 'GET', path: '/v1/agent/connect/authorize', token: MANAGEMENT }),
    ],
  },
  {
    system: 'mesh',
    method: 'GET',
    path: '/v1/agent/connect/ca/roots',
    statements: ['mesh.roots.active-root-id', 'mesh.roots.roots-array', 'mesh.roots.root-fields', 'mesh.endpoints.roots-row', 'mesh.endpoints.json'],
    requests: [
      fixed('ok', 'the roots', { method: 'GET', path: '/v1/agent/connect/ca/roots', token: MANAGEMENT }),
      fixed('ok', 'a blocking query with an index already passed', { method: 'GET', path: '/v1/agent/connect/ca/roots', query: { index: '1', wait: '1s' }, token: MANAGEMENT }),
      fixed('wrong-type', 'an index that is not a number', { method: 'GET', path: '/v1/agent/connect/ca/roots', query: { index: 'abc' }, token: MANAGEMENT }),
      fixed('wrong-type', 'a wait that is not a duration', { method: 'GET', path: '/v1/agent/connect/ca/roots', query: { index: '1', wait: 'soon' }, token: MANAGEMENT }),
      ...tokenClasses({ method: 'GET', path: '/v1/agent/connect/ca/roots' }, { symbol: 'tokOther', what: 'a token with service:write on an unrelated service' }),
      fixed('wrong-method', 'PUT', { method: 'PUT', path: '/v1/agent/connect/ca/roots', token: MANAGEMENT }),
    ],
  },
  {
    system: 'mesh',
    method: 'GET',
    path: '/v1/agent/connect/ca/leaf/:service',
    statements: ['mesh.leaf.serial-number', 'mesh.leaf.cert-pem', 'mesh.leaf.private-key-pem', 'mesh.leaf.service', 'mesh.leaf.service-uri', 'mesh.leaf.valid-after', 'mesh.leaf.valid-before', 'mesh.leaf.namespace', 'mesh.leaf.create-index', 'mesh.leaf.modify-index', 'mesh.endpoints.leaf-row', 'mesh.endpoints.service-need-not-exist', 'mesh.endpoints.json'],
    requests: [
      fixed('ok', "the run's service", { method: 'GET', path: '/v1/agent/connect/ca/leaf/@{svc}', token: MANAGEMENT }),
      generated('ok', 'a service that does not exist', unknownName, (n) => ({ method: 'GET', path: `/v1/agent/connect/ca/leaf/@{prefix}-${n}`, token: MANAGEMENT })),
      fixed('ok', 'a token with service:write on the service', { method: 'GET', path: '/v1/agent/connect/ca/leaf/@{svc}', token: { kind: 'fixture', symbol: 'tokSvc' } }),
      fixed('wrong-type', 'an index that is not a number', { method: 'GET', path: '/v1/agent/connect/ca/leaf/@{svc}', query: { index: 'abc' }, token: MANAGEMENT }),
      fixed('missing-field', 'no service name', { method: 'GET', path: '/v1/agent/connect/ca/leaf/', token: MANAGEMENT }),
      generated('path-escape', 'a service name with a path in it', fc.constantFrom('..%2F..%2Fv1%2Fagent%2Fself', 'a%2Fb', '..'), (p) => ({ method: 'GET', path: `/v1/agent/connect/ca/leaf/${p}`, token: MANAGEMENT })),
      ...tokenClasses({ method: 'GET', path: '/v1/agent/connect/ca/leaf/@{svc}' }, { symbol: 'tokOther', what: 'a token with service:write on another service only' }),
      fixed('wrong-method', 'POST', { method: 'POST', path: '/v1/agent/connect/ca/leaf/@{svc}', token: MANAGEMENT }),
    ],
  },
];
