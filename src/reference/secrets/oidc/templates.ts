import type { Entity } from '../identity-store.ts';
import { FieldError } from '../named-collection.ts';

/** Claims an ID token sets itself; a scope template may not define them. */
export const RESERVED_CLAIMS = ['iat', 'aud', 'exp', 'iss', 'sub', 'namespace', 'nonce', 'auth_time', 'at_hash', 'c_hash'];

const EXPRESSION = /\{\{\s*identity\.entity\.(id|name|metadata\.([\w.-]+)|groups\.names|groups\.ids)\s*\}\}/g;

export interface TemplateSubject {
  entity: Entity;
  groupNames: string[];
  /** Render an empty group list as null, as Vault does, instead of []. */
  emptyListAsNull?: boolean;
}

/** The template text, decoded when it was given base64-encoded. */
export function templateText(template: string): string {
  const looksJson = /^\s*[{[]/.test(template);
  if (looksJson) return template;
  const decoded = Buffer.from(template, 'base64').toString('utf8');
  return /^\s*[{[]/.test(decoded) ? decoded : template;
}

/**
 * Renders a scope template for an entity: each identity template expression becomes the JSON
 * value it names (a string, or a list for groups), then the text must parse as a JSON object.
 */
export function renderTemplate(template: string, subject: TemplateSubject): Record<string, unknown> {
  const text = templateText(template).replace(EXPRESSION, (_m, what: string, metaKey: string | undefined) => {
    if (what === 'id') return JSON.stringify(subject.entity.id);
    if (what === 'name') return JSON.stringify(subject.entity.name);
    const list = (items: string[]) => (items.length === 0 && subject.emptyListAsNull ? 'null' : JSON.stringify(items));
    if (what === 'groups.names') return list(subject.groupNames);
    if (what === 'groups.ids') return list(subject.entity.groupIds);
    return JSON.stringify(subject.entity.metadata[metaKey!] ?? '');
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new FieldError(`error parsing template JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FieldError('error parsing template JSON: the template must be a JSON object');
  for (const key of Object.keys(parsed)) {
    if (RESERVED_CLAIMS.includes(key)) throw new FieldError(`top level key "${key}" not allowed. Restricted keys: ${RESERVED_CLAIMS.join(', ')}`);
  }
  return parsed as Record<string, unknown>;
}

/** Checks a template when it is written, by rendering it for a placeholder entity. */
export function validateTemplate(template: string): void {
  const placeholder: Entity = { id: 'id', name: 'name', metadata: {}, policies: [], groupIds: [], aliases: [], disabled: false, createdAt: '', updatedAt: '' };
  renderTemplate(template, { entity: placeholder, groupNames: [] });
}
