import type { FaultSet } from '../faults/types.ts';
import type { EngineRequest, HelpDocument, SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { FieldError, NamedCollection, optionalString, stringList } from './named-collection.ts';
import { badRequest, notFound, type EngineResult } from './respond.ts';

interface Scope {
  template: string;
  description: string;
}

interface Assignment {
  entity_ids: string[];
  group_ids: string[];
}

/** Claims an ID token sets itself; a scope template may not define them. */
const RESERVED_CLAIMS = ['iat', 'aud', 'exp', 'iss', 'sub', 'namespace', 'nonce', 'auth_time', 'at_hash', 'c_hash'];

/** Parses a scope template: escaped JSON, or base64-encoded JSON. */
export function parseTemplate(template: string): Record<string, unknown> {
  const attempt = (text: string): unknown => JSON.parse(text);
  let parsed: unknown;
  try {
    parsed = attempt(template);
  } catch {
    try {
      parsed = attempt(Buffer.from(template, 'base64').toString('utf8'));
    } catch (err) {
      throw new FieldError(`error parsing template JSON: ${(err as Error).message}`);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FieldError('error parsing template JSON: the template must be a JSON object');
  for (const key of Object.keys(parsed)) {
    if (RESERVED_CLAIMS.includes(key)) throw new FieldError(`top level key "${key}" not allowed. Restricted keys: ${RESERVED_CLAIMS.join(', ')}`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The identity store's OIDC provider configuration, mounted at identity/. Named resources
 * validate their names: a name ending in a period is an unsupported path (404).
 */
export class IdentityOidcEngine implements SecretsEngine {
  readonly type = 'identity';
  readonly scopes = new NamedCollection<Scope>();
  readonly assignments = new NamedCollection<Assignment>();

  constructor(private readonly faults: FaultSet) {
    // Built in: allows every entity.
    this.assignments.items.set('allow_all', { entity_ids: ['*'], group_ids: ['*'] });
  }

  handle(req: EngineRequest): EngineResult {
    const m = /^oidc\/(scope|assignment)(?:\/(.*))?$/.exec(req.path);
    if (!m) return { kind: 'error', status: 404, errors: [`unsupported path: ${req.path}`] };
    const [, kind, name = ''] = m;
    const collection = kind === 'scope' ? this.scopes : this.assignments;
    if (req.operation === 'list') return name === '' ? collection.list() : { kind: 'error', status: 405, errors: ['unsupported operation'] };
    if (name === '' || name.includes('/')) return { kind: 'error', status: 404, errors: [`unsupported path: ${req.path}`] };
    if (!NamedCollection.validName(name, this.faults.has('secrets.trailing-period-accepted'))) {
      return this.faults.has('secrets.unsupported-path-message') ? notFound() : NamedCollection.unsupported(name);
    }
    try {
      if (kind === 'scope') return this.scope(req, name);
      return this.assignment(req, name);
    } catch (err) {
      if (err instanceof FieldError) return badRequest(err.message);
      throw err;
    }
  }

  help(path: string): HelpDocument | undefined {
    if (!/^oidc\/(scope|assignment)(\/[^/]*)?$/.test(path)) return undefined;
    const named = /\/[^/]+$/.test(path.replace(/^oidc\/(scope|assignment)/, ''));
    return named
      ? helpDocument('OIDC resource', `Create, read, update and delete the OIDC resource at \`${path}\`.`, { summary: 'the named resource', verbs: ['get', 'post', 'put', 'delete'] })
      : helpDocument('OIDC resources', `List the OIDC resources at \`${path}\`.`, { summary: 'the names of the resources', verbs: ['list'] }, { summary: 'one named resource', verbs: ['get', 'post', 'put', 'delete'] });
  }

  private scope(req: EngineRequest, name: string): EngineResult {
    if (req.operation === 'read') return this.scopes.read(name, (s) => ({ template: s.template, description: s.description }));
    if (req.operation === 'delete') return this.scopes.remove(name);
    if (name === 'openid') return badRequest('the "openid" scope name is reserved');
    const existing = this.scopes.items.get(name);
    const template = optionalString(req.data.template, 'template') ?? existing?.template ?? '';
    if (template !== '') parseTemplate(template);
    const description = optionalString(req.data.description, 'description') ?? existing?.description ?? '';
    this.scopes.items.set(name, { template, description });
    return { kind: 'no-content' };
  }

  private assignment(req: EngineRequest, name: string): EngineResult {
    if (req.operation === 'read') return this.assignments.read(name, (a) => ({ entity_ids: a.entity_ids, group_ids: a.group_ids }));
    if (name === 'allow_all') return badRequest(`${req.operation === 'delete' ? 'deletion' : 'modification'} of assignment "allow_all" not allowed`);
    if (req.operation === 'delete') return this.assignments.remove(name);
    const existing = this.assignments.items.get(name);
    this.assignments.items.set(name, {
      entity_ids: stringList(req.data.entity_ids, 'entity_ids') ?? existing?.entity_ids ?? [],
      group_ids: stringList(req.data.group_ids, 'group_ids') ?? existing?.group_ids ?? [],
    });
    return { kind: 'no-content' };
  }
}
