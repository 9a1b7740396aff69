/**
 * A very small renderer for a Nomad template's EmbeddedTmpl, enough for the jobs the harness submits.
 * Nomad renders templates with consul-template on the client (Go text/template plus consul-template's
 * functions); the reference implements only:
 *  - `{{ env "NAME" }}`: the task environment's value ('' when absent), as consul-template's env does;
 *  - `{{ "literal" }}` (and raw `literal`): the string itself;
 *  - text/template's trim markers: `{{- ` trims the whitespace before the action, ` -}}` the whitespace after.
 * Text outside actions is copied byte for byte. Any other action is refused, naming the function
 * when there is one, so a job that needs more is not silently rendered wrong.
 */

export type RenderResult = { ok: true; text: string } | { ok: false; message: string };

const NOT_IMPLEMENTED_TAIL = 'is not implemented by the stackproof reference (it renders env and string literals only)';
const SPACE = new Set([' ', '\t', '\r', '\n']); // text/template's isSpace for trim markers

type Token = { kind: 'string'; value: string } | { kind: 'ident'; value: string } | { kind: 'pipe' } | { kind: 'other'; value: string };

/** Go's strconv.Unquote for a "..." literal (the text between the quotes); null when malformed. */
function unquote(body: string): string | null {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      if (c === '"' || c === '\n') return null;
      out += c;
      continue;
    }
    const n = body[++i];
    if (n === undefined) return null;
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"' };
    if (n in simple) { out += simple[n]; continue; }
    const hexLen = n === 'x' ? 2 : n === 'u' ? 4 : n === 'U' ? 8 : 0;
    if (hexLen > 0) {
      const hex = body.slice(i + 1, i + 1 + hexLen);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(hex)) return null;
      const cp = parseInt(hex, 16);
      if (n === 'x') out += String.fromCharCode(cp); // a byte; fine for ASCII
      else if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
      else out += String.fromCodePoint(cp);
      i += hexLen;
      continue;
    }
    if (/[0-7]/.test(n)) {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) return null;
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
      continue;
    }
    return null;
  }
  return out;
}

function tokenize(action: string): Token[] | string {
  const tokens: Token[] = [];
  let i = 0;
  while (i < action.length) {
    const c = action[i]!;
    if (/\s/.test(c)) { i++; continue; }
    if (c === '"') {
      let j = i + 1;
      while (j < action.length && action[j] !== '"') j += action[j] === '\\' ? 2 : 1;
      if (j >= action.length) return 'template: unterminated quoted string';
      const value = unquote(action.slice(i + 1, j));
      if (value === null) return `template: bad string literal ${action.slice(i, j + 1)}`;
      tokens.push({ kind: 'string', value });
      i = j + 1;
      continue;
    }
    if (c === '`') {
      const j = action.indexOf('`', i + 1);
      if (j < 0) return 'template: unterminated raw quoted string';
      tokens.push({ kind: 'string', value: action.slice(i + 1, j).replaceAll('\r', '') });
      i = j + 1;
      continue;
    }
    if (c === '|') { tokens.push({ kind: 'pipe' }); i++; continue; }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(action.slice(i));
    if (ident) { tokens.push({ kind: 'ident', value: ident[0] }); i += ident[0].length; continue; }
    const other = /^\S+/.exec(action.slice(i))![0];
    tokens.push({ kind: 'other', value: other });
    i += other.length;
  }
  return tokens;
}

function evaluate(action: string, env: Record<string, string>, left: string, right: string): RenderResult {
  const tokens = tokenize(action);
  if (typeof tokens === 'string') return { ok: false, message: tokens };
  const notImplemented = (): RenderResult => {
    const fn = tokens.find((t) => t.kind === 'ident' && t.value !== 'env');
    if (fn && fn.kind === 'ident') return { ok: false, message: `template: function ${JSON.stringify(fn.value)} ${NOT_IMPLEMENTED_TAIL}` };
    return { ok: false, message: `template: action ${left}${action}${right} ${NOT_IMPLEMENTED_TAIL}` };
  };
  if (tokens.length === 0) return { ok: false, message: 'template: missing value for command' };
  const [first, ...rest] = tokens;
  if (first!.kind === 'string' && rest.length === 0) return { ok: true, text: first!.value };
  if (first!.kind === 'ident' && first!.value === 'env') {
    const args = rest.filter((t) => t.kind !== 'pipe');
    if (rest.some((t) => t.kind !== 'string')) return notImplemented();
    if (args.length !== 1) return { ok: false, message: `template: wrong number of args for env: want 1 got ${args.length}` };
    const name = (args[0] as { value: string }).value;
    return { ok: true, text: Object.prototype.hasOwnProperty.call(env, name) ? env[name]! : '' };
  }
  return notImplemented();
}

/** Renders `text` with delimiters `left`/`right` (`{{`/`}}` when empty) and the task environment `env`. */
export function renderEmbeddedTemplate(text: string, left: string, right: string, env: Record<string, string>): RenderResult {
  const l = left === '' ? '{{' : left;
  const r = right === '' ? '}}' : right;
  let out = '';
  let i = 0;
  let trimNext = false;
  while (i <= text.length) {
    const start = text.indexOf(l, i);
    let chunk = start < 0 ? text.slice(i) : text.slice(i, start);
    if (trimNext) chunk = chunk.replace(/^[ \t\r\n]+/, '');
    if (start < 0) {
      out += chunk;
      break;
    }
    // Left trim marker: "-" and a space right after the left delimiter.
    let bodyStart = start + l.length;
    if (text[bodyStart] === '-' && SPACE.has(text[bodyStart + 1] ?? '')) {
      chunk = chunk.replace(/[ \t\r\n]+$/, '');
      bodyStart += 2;
    }
    out += chunk;
    // Find the right delimiter outside quoted strings.
    let j = bodyStart;
    let end = -1;
    while (j < text.length) {
      const c = text[j]!;
      if (c === '"') {
        j++;
        while (j < text.length && text[j] !== '"' && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
        j++;
        continue;
      }
      if (c === '`') {
        const k = text.indexOf('`', j + 1);
        j = k < 0 ? text.length : k + 1;
        continue;
      }
      if (text.startsWith(r, j)) { end = j; break; }
      j++;
    }
    if (end < 0) return { ok: false, message: 'template: unclosed action' };
    let bodyEnd = end;
    trimNext = false;
    // Right trim marker: a space and "-" right before the right delimiter.
    if (text[end - 1] === '-' && SPACE.has(text[end - 2] ?? '') && end - 2 >= bodyStart) {
      trimNext = true;
      bodyEnd = end - 2;
    }
    const action = text.slice(bodyStart, bodyEnd);
    const value = evaluate(action, env, l, r);
    if (!value.ok) return value;
    out += value.text;
    i = end + r.length;
    if (i === text.length) {
      break;
    }
  }
  return { ok: true, text: out };
}
