import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.secrets;
const rule = (r: Omit<Rule, 'system'>): Rule => ({ system: 'secrets', ...r });

/** Spec 000: core HTTP conventions (What the service does, Core, Authentication, Errors, Limits). */
export const secretsCoreRules: Rule[] = [
  rule({
    id: 'secrets.core.list-empty-404',
    title: 'A LIST with no results answers 404 with {"errors":[]}, through the LIST verb and GET ?list=true',
    level: 'MUST',
    sources: [
      { file, section: 'Endpoints > Core', quote: 'When the result is empty the status is 404 with {errors:[]}' },
      { file, section: 'Errors', quote: 'empty LIST result' },
      { file, section: 'What the service does', quote: 'LIST (or GET with query parameter list=true) lists' },
    ],
  }),
  rule({
    id: 'secrets.core.kv-mounted-at-secret',
    title: 'A key-value engine is mounted at secret/: a secret written there reads back',
    level: 'MUST',
    sources: [{ file, section: 'What the service does', quote: 'A key-value engine is mounted at secret/ on a fresh install.' }],
  }),
  rule({
    id: 'secrets.core.content-type-set',
    title: 'Every response with a body carries a Content-Type header',
    level: 'MUST',
    sources: [{ file, section: 'What the service does', quote: 'The service sets Content-Type on responses' }],
  }),
  rule({
    id: 'secrets.core.content-type-not-required',
    title: 'A JSON write without a Content-Type header is accepted like one with it',
    level: 'MUST',
    sources: [{ file, section: 'What the service does', quote: 'does not require it on requests' }],
  }),
  rule({
    id: 'secrets.core.post-put-synonyms',
    title: 'POST and PUT are interchangeable for any key and value',
    level: 'MUST',
    sources: [{ file, section: 'What the service does', quote: 'POST and PUT are synonyms and write' }],
  }),
  rule({
    id: 'secrets.core.list-verb-equals-query',
    title: 'LIST and GET ?list=true give identical answers for any tree of secrets',
    level: 'MUST',
    sources: [
      { file, section: 'What the service does', quote: 'LIST (or GET with query parameter list=true) lists' },
      { file, section: 'Endpoints > Core', quote: 'LIST or GET with list=true | <path>/ | Returns data.keys' },
    ],
  }),
  rule({
    id: 'secrets.core.success-status',
    title: 'Every success is 200 with a body or 204 without one',
    level: 'MUST',
    sources: [{ file, section: 'Endpoints', quote: 'Success is 200 with a body or 204 without' }],
  }),
  rule({
    id: 'secrets.core.help-openapi',
    title: '?help=1 returns help (markdown) and openapi, an OpenAPI 3 document whose paths are relative to the queried path',
    level: 'MUST',
    sources: [
      {
        file,
        section: 'What the service does',
        quote:
          "Help: appending ?help=1 to any URL returns, if the caller may access the path, an attribute 'help' (markdown text) and an attribute 'openapi' (a small OpenAPI 3 document for that path and paths beneath it; paths inside it are relative to the queried path).",
      },
    ],
  }),
  rule({
    id: 'secrets.core.help-no-leak',
    title: '?help=1 on a path the caller may not access (no valid token) is refused and shows no help',
    level: 'MUST',
    sources: [
      { file, section: 'What the service does', quote: 'if the caller may access the path' },
      { file, section: 'Authentication', quote: 'a path the caller may not see can answer 404' },
    ],
  }),
  rule({
    id: 'secrets.core.path-param-trailing-period-404',
    title: 'Any name ending in a period answers 404 on every route that takes a path parameter',
    level: 'MUST',
    sources: [
      { file, section: 'Endpoints', quote: 'Path parameters must not end with a period; otherwise the service answers 404 (unsupported path).' },
      { file, section: 'Errors', quote: 'path parameter ending in a period' },
    ],
  }),
  rule({
    id: 'secrets.limits.max-request-size',
    title: 'A request over the maximum request size (32 MB by default) is refused with a 4xx and the error body',
    level: 'MUST',
    sources: [{ file, section: 'Limits', quote: 'Maximum request size | 32 MB; tunable per listener in the server configuration' }],
  }),
];

/** Spec 000, Authentication and the 403 status. */
export const secretsAuthRules: Rule[] = [
  rule({
    id: 'secrets.auth.token-required',
    title: 'Without a client token no operation on a secret succeeds: 403 with the error body, and no data',
    level: 'MUST',
    sources: [
      { file, section: 'What the service does', quote: 'nearly every operation requires a client token' },
      { file, section: 'Errors', quote: 'Forbidden: wrong authentication' },
    ],
  }),
  rule({
    id: 'secrets.auth.bad-token-refused',
    title: 'A token the service did not issue is refused with 403 and reads no data',
    level: 'MUST',
    sources: [{ file, section: 'Errors', quote: 'Forbidden: wrong authentication' }],
  }),
  rule({
    id: 'secrets.auth.token-headers-equivalent',
    title: 'The token works in X-Service-Token and in Authorization: Bearer, with the same answers',
    level: 'MUST',
    sources: [{ file, section: 'Authentication', quote: "A client token is sent in header X-Service-Token or in header 'Authorization: Bearer <token>'." }],
  }),
  rule({
    id: 'secrets.proxy.request-header-required',
    title: 'A proxy that requires the request header refuses requests without X-Service-Request and passes those with it',
    level: 'MUST',
    capability: 'requestHeaderProxy',
    sources: [{ file, section: 'Authentication', quote: 'A proxy configured to require a request header rejects requests without X-Service-Request; the examples set it to the text true.' }],
  }),
];

/** Spec 000, Errors. */
export const secretsErrorRules: Rule[] = [
  rule({
    id: 'secrets.errors.body-on-every-error',
    title: 'Every answer with status >= 400 has the body {"errors":[...]} (checked on every exchange of every rule)',
    level: 'MUST',
    sources: [
      { file, section: 'Errors', quote: 'For status >= 400 the body is {errors:[<message>, ...]}.' },
      { file, section: 'Resources and their fields > Error body', quote: 'Returned for every HTTP status >= 400' },
    ],
  }),
  rule({
    id: 'secrets.errors.method-not-allowed-405',
    title: 'A method the path does not support answers 405',
    level: 'MUST',
    sources: [{ file, section: 'Errors', quote: '405 | Method not supported on the path' }],
  }),
  rule({
    id: 'secrets.errors.unknown-path-404',
    title: 'A path no engine serves answers 404',
    level: 'MUST',
    sources: [{ file, section: 'Errors', quote: '404 | Invalid path, or no permission to see it' }],
  }),
  rule({
    id: 'secrets.errors.malformed-json-400',
    title: 'A write whose body is not valid JSON (or not an object) answers 400',
    level: 'MUST',
    sources: [
      { file, section: 'Errors', quote: '400 | Invalid request, missing or invalid data' },
      { file, section: 'What the service does', quote: 'Request and response bodies are normally JSON.' },
    ],
  }),
];

/** Spec 000, namespaces (an Enterprise capability the target declares). */
export const secretsNamespaceRules: Rule[] = [
  rule({
    id: 'secrets.ns.header-path-equivalence',
    title: 'Any split of a namespace path between X-Service-Namespace and the request path gives the same result',
    level: 'MUST',
    capability: 'namespaces',
    sources: [
      {
        file,
        section: 'Authentication',
        quote: 'Using the full path without the header, or splitting the namespace between header and path, is equivalent.',
      },
      { file, section: 'Authentication', quote: "With path secret/foo and header 'ns1/ns2/' the effective path is ns1/ns2/secret/foo." },
    ],
  }),
  rule({
    id: 'secrets.ns.isolation',
    title: 'A secret written in one namespace is not found at the same relative path in another',
    level: 'MUST',
    capability: 'namespaces',
    sources: [{ file, section: 'Authentication', quote: 'Namespaces: the request path is relative to the X-Service-Namespace header.' }],
  }),
];
