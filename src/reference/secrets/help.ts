import type { HelpDocument } from './engine.ts';

type Verb = 'get' | 'post' | 'put' | 'delete' | 'list';

interface PathHelp {
  summary: string;
  verbs: Verb[];
}

/**
 * Builds the ?help=1 answer. Paths in the OpenAPI document are relative to the queried path:
 * `/` is the queried path itself and `/{name}` what lies beneath it.
 */
export function helpDocument(title: string, description: string, self: PathHelp, beneath?: PathHelp): HelpDocument {
  const paths: Record<string, unknown> = { '/': pathItem(self) };
  if (beneath) paths['/{name}'] = { ...pathItem(beneath), parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }] };
  return {
    help: `## ${title}\n\n${description}\n\n### Operations\n\n${self.verbs.map((v) => `- ${v.toUpperCase()}: ${self.summary}`).join('\n')}\n`,
    openapi: {
      openapi: '3.0.2',
      info: { title, description, version: '1.0.0' },
      paths,
    },
  };
}

function pathItem(p: PathHelp): Record<string, unknown> {
  const item: Record<string, unknown> = { summary: p.summary };
  for (const verb of p.verbs) {
    // OpenAPI has no LIST method; the upstream convention is GET with a list=true query parameter.
    const method = verb === 'list' ? 'get' : verb;
    const op = { summary: `${verb.toUpperCase()} ${p.summary}`, responses: { '200': { description: 'OK' }, '204': { description: 'empty body' } } };
    if (verb === 'list') item[method] = { ...op, parameters: [{ name: 'list', in: 'query', required: true, schema: { type: 'string', enum: ['true'] } }] };
    else item[method] ??= op;
  }
  return item;
}

/** Makes every relative path absolute; the fault that breaks the relative-paths rule. */
export function absolutizePaths(doc: HelpDocument, requestPath: string): HelpDocument {
  const openapi = doc.openapi as { paths: Record<string, unknown> };
  const paths = Object.fromEntries(Object.entries(openapi.paths).map(([k, v]) => [`/v1/${requestPath.replace(/\/$/, '')}${k === '/' ? '' : k}`, v]));
  return { ...doc, openapi: { ...doc.openapi, paths } };
}

/**
 * A well-formed document that describes some other path: relative, no /v1/, and yet not about the
 * queried path or anything beneath it. The fault that only a check of what is described catches.
 */
export function unrelatedHelp(): HelpDocument {
  const doc = helpDocument('Health', 'Reports whether the service is up.', { summary: 'the health of the service', verbs: ['get'] });
  const openapi = doc.openapi as { paths: Record<string, unknown> };
  return { ...doc, openapi: { ...doc.openapi, paths: { '/sys/health': openapi.paths['/'] } } };
}
