import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.secrets;
const notes = 'shared/notes/upstream-behaviors.md § 1a';

/** What the spec leaves "not shown" and the upstream product does; strict profile only. */
export const secretsUpstreamRules: Rule[] = [
  {
    id: 'secrets.upstream.proxy-missing-header-412',
    system: 'secrets',
    title: 'The request-header proxy refuses a request without the header with status 412',
    level: 'UPSTREAM',
    capability: 'requestHeaderProxy',
    sources: [{ file, section: 'Authentication', quote: 'A proxy configured to require a request header rejects requests without X-Service-Request' }],
    upstream: { product: 'Vault Agent/Proxy', source: 'hashicorp/vault command/agent.go (require_request_header)', note: `missing header answers 412 (${notes})` },
  },
  {
    id: 'secrets.upstream.list-invalid-bool-400',
    system: 'secrets',
    title: 'GET with a list= value that is not a boolean answers 400',
    level: 'UPSTREAM',
    sources: [{ file, section: 'What the service does', quote: 'LIST (or GET with query parameter list=true) lists' }],
    upstream: { product: 'Vault', source: 'hashicorp/vault http/logical.go', note: `?list=notabool answers 400 (${notes})` },
  },
  {
    id: 'secrets.upstream.unsupported-path-message',
    system: 'secrets',
    title: 'A path parameter ending in a period answers 404 with an error message saying the path is unsupported',
    level: 'UPSTREAM',
    sources: [{ file, section: 'Endpoints', quote: 'otherwise the service answers 404 (unsupported path)' }],
    upstream: { product: 'Vault', source: 'hashicorp/vault sdk/framework/path.go GenericNameRegex, sdk/logical/response_util.go', note: `ErrUnsupportedPath, message "unsupported path" (${notes})` },
  },
  {
    id: 'secrets.upstream.json-body-under-form-type',
    system: 'secrets',
    title: 'A JSON body sent with Content-Type application/x-www-form-urlencoded (what curl --data sends) is read as JSON, also after leading whitespace',
    level: 'UPSTREAM',
    sources: [{ file, section: 'What the service does', quote: 'Request and response bodies are normally JSON. The service sets Content-Type on responses and does not require it on requests.' }],
    upstream: {
      product: 'Vault',
      source: 'hashicorp/vault http/handler.go isForm (since 1.4.0, hashicorp/vault#8325; before it Vault read every body as JSON)',
      note: 'a body is a form only under the form media type and when it does not open, after whitespace in its first 512 bytes, with { or [; Vault\'s own docs write secrets with curl --data @file.json',
    },
  },
];
