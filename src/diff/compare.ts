import { compareFieldSets, type FieldSetDifference } from './field-set.ts';
import type { Answer } from './normalise.ts';

/** What of an answer differs. */
export const ASPECTS = ['status', 'content-type', 'error', 'fields', 'body'] as const;
export type Aspect = (typeof ASPECTS)[number];

/** One way two answers to the same request differ. */
export type Difference =
  | { aspect: 'status'; a: string; b: string }
  | { aspect: 'content-type'; a: string; b: string }
  | { aspect: 'error'; a: string; b: string }
  | { aspect: 'fields'; fields: FieldSetDifference }
  | { aspect: 'body'; a: string; b: string };

const statusOf = (x: Answer) => (x.status === undefined ? `no answer (${x.noAnswer})` : String(x.status));

/**
 * How two normalised answers differ: the status first (when it differs nothing else is compared:
 * the rest follows from it), then the media type, then the error message (400 and above) or the
 * field set (a JSON answer) or the text (any other answer).
 */
export function compareAnswers(a: Answer, b: Answer): Difference[] {
  if (a.status !== b.status || a.status === undefined) {
    return a.status === undefined && b.status === undefined ? [] : [{ aspect: 'status', a: statusOf(a), b: statusOf(b) }];
  }
  const out: Difference[] = [];
  // A media type says nothing of an empty body (204): compared only where one side sent bytes.
  if ((a.contentType ?? '') !== (b.contentType ?? '') && (a.excerpt !== '' || b.excerpt !== '')) out.push({ aspect: 'content-type', a: a.contentType ?? '(none)', b: b.contentType ?? '(none)' });
  if (a.status >= 400) {
    if ((a.error ?? '') !== (b.error ?? '')) out.push({ aspect: 'error', a: a.error ?? '', b: b.error ?? '' });
    return out;
  }
  if (a.fields && b.fields) {
    const fields = compareFieldSets(a.fields, b.fields);
    if (fields) out.push({ aspect: 'fields', fields });
  } else if (a.fields || b.fields) {
    out.push({ aspect: 'body', a: a.fields ? 'a JSON body' : 'a body that is not JSON', b: b.fields ? 'a JSON body' : 'a body that is not JSON' });
  } else if ((a.text ?? '') !== (b.text ?? '')) {
    out.push({ aspect: 'body', a: a.text ?? '', b: b.text ?? '' });
  }
  return out;
}

/** One line saying what differs. */
export function describeDifference(d: Difference, names: { a: string; b: string }): string {
  switch (d.aspect) {
    case 'status':
      return `status: ${names.a} ${d.a}, ${names.b} ${d.b}`;
    case 'content-type':
      return `Content-Type: ${names.a} ${d.a}, ${names.b} ${d.b}`;
    case 'error':
      return `error: ${names.a} ${JSON.stringify(d.a)}, ${names.b} ${JSON.stringify(d.b)}`;
    case 'body':
      return `body: ${names.a} ${JSON.stringify(d.a.slice(0, 200))}, ${names.b} ${JSON.stringify(d.b.slice(0, 200))}`;
    case 'fields': {
      const f = d.fields;
      const parts = [
        ...(f.onlyA.length ? [`only ${names.a}: ${list(f.onlyA)}`] : []),
        ...(f.onlyB.length ? [`only ${names.b}: ${list(f.onlyB)}`] : []),
        ...(f.types.length ? [`types: ${list(f.types.map((t) => `${t.path} ${t.a}/${t.b}`))}`] : []),
      ];
      return `fields: ${parts.join('; ')}`;
    }
  }
}

function list(items: string[]): string {
  return items.length > 12 ? `${items.slice(0, 12).join(', ')} and ${items.length - 12} more` : items.join(', ');
}
