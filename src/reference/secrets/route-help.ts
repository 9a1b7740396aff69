import type { FaultSet } from '../faults/types.ts';
import type { HelpDocument } from './engine.ts';
import type { SecretsFlavor } from './flavor.ts';

type Verb = 'get' | 'post' | 'delete' | 'list';

/** One route of an engine below its mount: segments, `{x}` for a path parameter. */
interface Route {
  path: string;
  summary: string;
  verbs: Verb[];
}

const named = (base: string, what: string): Route[] => [
  { path: base, summary: `the names of the ${what}s`, verbs: ['list'] },
  { path: `${base}/{name}`, summary: `one named ${what}`, verbs: ['get', 'post', 'delete'] },
];

/** The routes spec 000 lists, per engine type (Endpoints > OIDC provider, > Cloud-identity auth method). */
const ROUTES: Record<string, { title: string; routes: Route[] }> = {
  identity: {
    title: 'Identity: the OIDC provider',
    routes: [
      ...named('oidc/provider', 'OIDC provider'),
      { path: 'oidc/provider/{name}/.well-known/openid-configuration', summary: 'the OpenID provider configuration', verbs: ['get'] },
      { path: 'oidc/provider/{name}/.well-known/keys', summary: 'the public key set', verbs: ['get'] },
      { path: 'oidc/provider/{name}/authorize', summary: 'the authorization endpoint', verbs: ['get', 'post'] },
      { path: 'oidc/provider/{name}/token', summary: 'the token endpoint', verbs: ['post'] },
      { path: 'oidc/provider/{name}/userinfo', summary: 'the userinfo endpoint', verbs: ['get', 'post'] },
      ...named('oidc/scope', 'OIDC scope'),
      ...named('oidc/client', 'OIDC client'),
      ...named('oidc/assignment', 'OIDC assignment'),
    ],
  },
  cloudauth: {
    title: 'Cloud-identity auth method',
    routes: [
      { path: 'config', summary: 'the auth method configuration', verbs: ['get', 'post', 'delete'] },
      ...named('role', 'role'),
      { path: 'login', summary: 'log in with a managed-identity JWT', verbs: ['post'] },
    ],
  },
};

const segments = (path: string) => (path === '' ? [] : path.split('/'));
const matches = (template: string, segment: string) => template === segment || /^\{\w+\}$/.test(template);

/**
 * Spec 000: ?help=1 returns "a small OpenAPI 3 document for that path and paths beneath it; paths
 * inside it are relative to the queried path". The document lists every route of the engine that
 * is the queried path or lies beneath it, keyed by what follows the queried path. Undefined for an
 * engine type without a table here, or a path no route is at or beneath.
 *
 * Vault documents a path below the mount with the one route it matches, keyed relative to the
 * mount (sdk/framework/path.go helpCallback, openapi.go documentPath "/"+pattern): the upstream
 * behaviour reproduces that, a listed deviation, and so does the fault.
 */
export function routeHelp(engineType: string, path: string, flavor: SecretsFlavor, faults: FaultSet): HelpDocument | undefined {
  const table = ROUTES[engineType];
  if (!table) return undefined;
  const queried = segments(path.replace(/\/$/, ''));
  const asVault = queried.length > 0 && (flavor.vaultDeviations || faults.has('secrets.help-relative-to-mount'));
  const paths: Record<string, unknown> = {};
  for (const route of table.routes) {
    const parts = segments(route.path);
    if (parts.length < queried.length || !queried.every((s, i) => matches(parts[i]!, s))) continue;
    if (asVault) {
      if (parts.length === queried.length) paths[`/${route.path}`] = pathItem(route, `/${route.path}`);
      continue;
    }
    if (faults.has('secrets.help-nothing-beneath') && parts.length > queried.length) continue;
    const key = `/${parts.slice(queried.length).join('/')}`;
    paths[key] = pathItem(route, key);
  }
  if (Object.keys(paths).length === 0) return undefined;
  const where = path === '' ? 'the mount' : `\`${path}\``;
  const lines = Object.entries(paths).map(([p, item]) => `- \`${p}\`: ${(item as { summary: string }).summary}`);
  return {
    help: `## ${table.title}\n\nRoutes at and beneath ${where}, relative to it:\n\n${lines.join('\n')}\n`,
    openapi: { openapi: '3.0.2', info: { title: table.title, description: `Routes at and beneath ${where}`, version: '1.0.0' }, paths },
  };
}

/** The path item of a route under its key: only the parameters the key still has are path parameters. */
function pathItem(route: Route, key: string): Record<string, unknown> {
  const item: Record<string, unknown> = { summary: route.summary };
  const params = [...key.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  if (params.length) item.parameters = params;
  for (const verb of route.verbs) {
    const op = { summary: `${verb.toUpperCase()} ${route.summary}`, responses: { '200': { description: 'OK' }, '204': { description: 'empty body' } } };
    // OpenAPI has no LIST method: GET with list=true, as Vault documents it (sdk/framework/openapi.go).
    if (verb === 'list') item.get = { ...op, parameters: [{ name: 'list', in: 'query', required: true, schema: { type: 'string', enum: ['true'] } }] };
    else item[verb] ??= op;
  }
  return item;
}
