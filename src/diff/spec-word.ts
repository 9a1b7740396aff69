import type { SystemName } from '../config/names.ts';
import { STATEMENT_MAPS } from '../rules/statements/index.ts';
import type { Statement } from '../rules/statements/types.ts';
import type { Difference } from './compare.ts';
import type { Answer } from './normalise.ts';
import type { RequestClass } from './request-template.ts';

/** A sentence of a spec, by the statement map's id when it has one. */
export interface SpecQuote {
  id?: string;
  section: string;
  quote: string;
}

/** Where a spec says it says nothing (its own "not shown" sentences), quoted as the spec writes them. */
export const SILENCE: Record<SystemName, { errors: SpecQuote }> = {
  secrets: { errors: { section: 'Errors', quote: 'Which condition of each individual OIDC or login operation yields which status: not shown.' } },
  mesh: { errors: { section: 'Errors', quote: 'Error status codes and error bodies: not shown.' } },
  scheduler: { errors: { section: 'Errors', quote: 'Other status codes and the error body format of these endpoints: not shown.' } },
};

/** Statements about the error body of every endpoint of a system (none: SILENCE says so). */
const ERROR_BODY: Partial<Record<SystemName, string>> = { secrets: 'secrets.errors.body' };

/** The status a spec states for a class of request, on every endpoint of its system. */
const CLASS_STATUS: Partial<Record<SystemName, Partial<Record<RequestClass, { status: number[]; statement: string }>>>> = {
  secrets: {
    'no-token': { status: [403], statement: 'secrets.errors.403-authentication' },
    'wrong-token': { status: [403], statement: 'secrets.errors.403-authentication' },
    'wrong-method': { status: [405], statement: 'secrets.errors.405' },
    'missing-field': { status: [400], statement: 'secrets.errors.400' },
    'wrong-type': { status: [400], statement: 'secrets.errors.400' },
    ok: { status: [200, 204], statement: 'secrets.core.success-status' },
  },
};

const BY_ID = new Map<string, Statement>(STATEMENT_MAPS.flatMap((m) => m.statements.map((s) => [s.id, s] as const)));

export function statement(id: string): SpecQuote {
  const s = BY_ID.get(id);
  if (!s) throw new Error(`no statement ${id} in the statement map`);
  return { id, section: s.section, quote: s.quote };
}

/** Whether the statement map has this id (the catalog test checks every id an endpoint names). */
export const hasStatement = (id: string) => BY_ID.has(id);

/** The status the spec states for a request: the template's own statement first, else its class's on this system. */
export function statedStatus(system: SystemName, klass: RequestClass, own?: { status: number[]; statement: string }): { status: number[]; by: SpecQuote } | undefined {
  const found = own ?? CLASS_STATUS[system]?.[klass];
  return found ? { status: found.status, by: statement(found.statement) } : undefined;
}

/**
 * What the spec says about one difference, in a sentence: for a status, the status it states for
 * this kind of request and which side gives it (or that it is silent); for an error, what it says
 * of error bodies; for fields, which of the differing fields the endpoint's statements name.
 */
export function specWordOn(system: SystemName, klass: RequestClass, d: Difference, endpointStatements: SpecQuote[], answers: { a: Answer; b: Answer }, names: { a: string; b: string }, own?: { status: number[]; statement: string }): string {
  switch (d.aspect) {
    case 'status': {
      const stated = statedStatus(system, klass, own);
      if (!stated) return `silent: no status is stated for this request (${quoteOf(SILENCE[system].errors)})`;
      const ok = (x: Answer) => x.status !== undefined && stated.status.includes(x.status);
      const who = ok(answers.a) && ok(answers.b) ? 'both do' : ok(answers.a) ? `${names.a} does` : ok(answers.b) ? `${names.b} does` : 'neither does';
      return `states ${stated.status.join(' or ')} (${quoteOf(stated.by)}): ${who}`;
    }
    case 'error': {
      const id = ERROR_BODY[system];
      return id ? `states the body's form, not its text (${quoteOf(statement(id))}); the message is the product's choice` : `silent (${quoteOf(SILENCE[system].errors)})`;
    }
    case 'content-type': {
      const named = endpointStatements.filter((s) => /application\/json|text\/plain|Content-Type|Produces/i.test(s.quote));
      return named.length ? `states ${named.map(quoteOf).join('; ')}` : 'silent on the media type of this answer';
    }
    case 'fields': {
      const paths = [...d.fields.onlyA, ...d.fields.onlyB, ...d.fields.types.map((t) => t.path)];
      const leaf = (p: string) => p.replace(/\[\]/g, '').split('.').filter(Boolean).pop() ?? p;
      const text = endpointStatements.map((s) => s.quote).join(' ');
      const named = [...new Set(paths.map(leaf))].filter((f) => new RegExp(`\\b${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(text));
      const unnamed = [...new Set(paths.map(leaf))].filter((f) => !named.includes(f));
      if (!endpointStatements.length) return 'silent: the spec gives this answer no fields';
      return [named.length ? `names ${named.join(', ')}` : '', unnamed.length ? `does not name ${unnamed.slice(0, 12).join(', ')}${unnamed.length > 12 ? ` and ${unnamed.length - 12} more` : ''}` : ''].filter(Boolean).join('; ');
    }
    case 'body':
      return endpointStatements.length ? `states ${endpointStatements.slice(0, 2).map(quoteOf).join('; ')}` : 'silent on this answer';
  }
}

export function quoteOf(q: SpecQuote): string {
  return `${q.id ? `${q.id}, ` : ''}${q.section}: "${q.quote}"`;
}
