/**
 * JSON with comments (JSONC, as VS Code's settings files): `//` and `/* *\/` comments and trailing
 * commas before `}` or `]`. The scanner blanks them out with spaces (newlines kept), so the text
 * JSON.parse then reads has every remaining character at its original offset, and a parse error can
 * still point at the line and column of the user's file.
 */

export class JsoncSyntaxError extends Error {
  override name = 'JsoncSyntaxError';
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line === undefined ? message : `${message} at line ${line}, column ${column}`);
  }
}

/** The text with comments and trailing commas replaced by blanks of the same length. */
export function stripJsonc(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n' && out[i] !== '\r') out[i] = ' ';
  };
  /** Offset of the last comma outside strings and comments that nothing but blanks has followed since. */
  let pendingComma = -1;
  /** The last character outside comments that is not a blank ('"' for a string). */
  let lastSignificant = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      pendingComma = -1;
      lastSignificant = '"';
      i++;
      while (i < text.length && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      // An unterminated string is left for JSON.parse to report.
      i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) {
        const { line, column } = lineAndColumn(text, i);
        throw new JsoncSyntaxError('unterminated /* comment', line, column);
      }
      blank(i, end + 2);
      i = end + 2;
      continue;
    }
    if (c === ',') pendingComma = lastSignificant === '{' || lastSignificant === '[' || lastSignificant === ',' ? -1 : i;
    else if ((c === '}' || c === ']') && pendingComma !== -1) {
      out[pendingComma] = ' ';
      pendingComma = -1;
    } else if (!/\s/.test(c)) pendingComma = -1;
    if (!/\s/.test(c)) lastSignificant = c;
    i++;
  }
  return out.join('');
}

/** Parses JSONC text; a syntax error names the line and column where it is. */
export function parseJsonc(text: string): unknown {
  // A byte order mark is what some Windows editors put first; JSON.parse does not take it.
  const body = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const stripped = stripJsonc(body);
  try {
    return JSON.parse(stripped);
  } catch {
    // V8's messages sometimes lack the position and quote a piece of the text (which may hold a
    // token), so the error is located and worded here instead.
    const offset = firstSyntaxError(stripped);
    const { line, column } = lineAndColumn(body, offset);
    const what = offset >= stripped.length ? 'unexpected end of text' : `unexpected character ${JSON.stringify(stripped[offset])}`;
    throw new JsoncSyntaxError(what, line, column);
  }
}

/** Offset of the first character that makes `text` not JSON (text.length when it ends too early). */
function firstSyntaxError(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && /[ \t\r\n]/.test(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (close === '}') {
          ws();
          if (text[i] !== '"') fail();
          string();
          ws();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === close) {
          i++;
          return;
        } else fail();
      }
    }
    if (c === '"') return string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!literal) fail();
    i += literal![0].length;
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= text.length) fail();
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c < ' ') fail();
      if (c === '\\') {
        if (text[i + 1] === 'u' ? !/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)) : !/^["\\/bfnrt]$/.test(text[i + 1] ?? '')) {
          i++;
          fail();
        }
        i += text[i + 1] === 'u' ? 6 : 2;
      } else i++;
    }
  };
  try {
    value();
    ws();
    return i < text.length ? i : text.length;
  } catch (at) {
    return at as number;
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}
