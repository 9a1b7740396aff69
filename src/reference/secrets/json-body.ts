import { BodyError, parseJsonObject } from '../http/body.ts';
import type { FaultSet } from '../faults/types.ts';
import type { SecretsFlavor } from './flavor.ts';

/** Where the JSON value starting at `start` ends (brackets and strings matched, nothing parsed). */
function valueEnd(text: string, start: number): number | undefined {
  const open = text[start];
  if (open === '"') return stringEnd(text, start);
  if (open !== '{' && open !== '[') {
    // A literal or a number runs to the next delimiter.
    let i = start;
    while (i < text.length && !/[\s,\]}{[":]/.test(text[i]!)) i++;
    return i;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === undefined) return undefined;
      i = end - 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

function stringEnd(text: string, start: number): number | undefined {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return undefined;
}

/**
 * The first JSON value of `text` and where it ends, or undefined when the text does not begin with
 * one. This is how a streaming decoder reads a body (Go's json.Decoder, which hashicorp/vault
 * sdk/helper/jsonutil DecodeJSONFromReader uses): it stops after one value.
 */
function firstJsonValue(text: string): { value: unknown; end: number } | undefined {
  const start = text.search(/\S/);
  if (start < 0) return undefined;
  const end = valueEnd(text, start);
  if (end === undefined) return undefined;
  try {
    return { value: JSON.parse(text.slice(start, end)), end };
  } catch {
    return undefined;
  }
}

/**
 * Vault 1.20.3 and later check every body that starts with '{' or '[' (after whitespace) against
 * their JSON limits before anything else, and answer 500 when it is not exactly one JSON value:
 * malformed text and trailing data alike (hashicorp/vault http/util.go wrapJSONLimitsHandler,
 * sdk/helper/jsonutil VerifyMaxDepthStreaming). Other bodies go to the JSON decoder: 400.
 */
function vaultJsonLimitsRefusal(text: string): string | undefined {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  const first = firstJsonValue(text);
  if (!first) return 'malformed JSON: the body is not one complete JSON value';
  const rest = text.slice(first.end).search(/\S/);
  if (rest >= 0) return `invalid character '${text.slice(first.end).trimStart()[0]}' after top-level value`;
  return undefined;
}

/**
 * Parses a write's JSON body. The spec: a body that is not valid JSON is invalid data, 400.
 * Faults and the upstream behaviour change that the way a real implementation might.
 */
export function parseWriteBody(body: Buffer, faults: FaultSet, flavor: SecretsFlavor): Record<string, unknown> {
  const text = body.toString('utf8');
  if (flavor.vaultDeviations) {
    const refusal = vaultJsonLimitsRefusal(text);
    if (refusal) throw new BodyError(500, refusal);
  }
  if (faults.has('secrets.json-trailing-data-ignored')) {
    // Like Vault before 1.20.3: decode the first value, never look at what follows.
    const first = firstJsonValue(text);
    if (first) return parseJsonObject(Buffer.from(JSON.stringify(first.value)));
  }
  return parseJsonObject(body);
}
