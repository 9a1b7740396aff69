/**
 * The part of HCL v1 (hashicorp/hcl, which Consul's ACL rules are written in) that rules use:
 * `key "label" { attr = "value" }` blocks, `key = value` assignments, objects, lists, strings,
 * numbers, booleans and `#`, `//`, `/* *\/` comments. HCL v1 also reads JSON, so a document that
 * starts with `{` is read as JSON. Errors read like hcl's: `At <line>:<col>: <what>`.
 */
export type HclNode =
  | { type: 'literal'; value: string; token: 'STRING' | 'NUMBER' | 'BOOL'; pos: Pos }
  | { type: 'object'; items: HclItem[]; pos: Pos }
  | { type: 'list'; values: HclNode[]; pos: Pos };

export interface HclItem {
  keys: string[];
  value: HclNode;
  pos: Pos;
}

export interface Pos {
  line: number;
  col: number;
}

export class HclError extends Error {
  constructor(
    readonly pos: Pos,
    what: string,
  ) {
    super(`At ${pos.line}:${pos.col}: ${what}`);
  }
}

type TokenType = 'IDENT' | 'STRING' | 'NUMBER' | 'BOOL' | 'LBRACE' | 'RBRACE' | 'LBRACK' | 'RBRACK' | 'ASSIGN' | 'COMMA' | 'EOF';

interface Token {
  type: TokenType;
  text: string;
  pos: Pos;
}

function lex(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let col = 1;
  const advance = (n: number) => {
    for (let k = 0; k < n; k++) {
      if (src[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };
  while (i < src.length) {
    const c = src[i]!;
    const pos = { line, col };
    if (/\s/.test(c)) {
      advance(1);
      continue;
    }
    if (c === '#' || (c === '/' && src[i + 1] === '/')) {
      while (i < src.length && src[i] !== '\n') advance(1);
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new HclError(pos, 'comment not terminated');
      advance(end + 2 - i);
      continue;
    }
    const single: Record<string, TokenType> = { '{': 'LBRACE', '}': 'RBRACE', '[': 'LBRACK', ']': 'RBRACK', '=': 'ASSIGN', ',': 'COMMA' };
    if (single[c]) {
      tokens.push({ type: single[c]!, text: c, pos });
      advance(1);
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let value = '';
      for (;;) {
        const d = src[j];
        if (d === undefined || d === '\n') throw new HclError(pos, 'literal not terminated');
        if (d === '"') break;
        if (d === '\\') {
          const e = src[j + 1];
          const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' };
          if (e !== undefined && simple[e] !== undefined) {
            value += simple[e];
            j += 2;
            continue;
          }
          if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(j + 2, j + 6))) {
            value += String.fromCharCode(parseInt(src.slice(j + 2, j + 6), 16));
            j += 6;
            continue;
          }
          throw new HclError({ line, col: col + (j - i) }, 'unknown escape sequence');
        }
        value += d;
        j++;
      }
      tokens.push({ type: 'STRING', text: value, pos });
      advance(j + 1 - i);
      continue;
    }
    const num = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(src.slice(i));
    if (num) {
      tokens.push({ type: 'NUMBER', text: num[0], pos });
      advance(num[0].length);
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_\-.]*/.exec(src.slice(i));
    if (ident) {
      tokens.push({ type: ident[0] === 'true' || ident[0] === 'false' ? 'BOOL' : 'IDENT', text: ident[0], pos });
      advance(ident[0].length);
      continue;
    }
    throw new HclError(pos, `illegal char ${JSON.stringify(c)}`);
  }
  tokens.push({ type: 'EOF', text: '', pos: { line, col } });
  return tokens;
}

class Parser {
  private at = 0;

  constructor(private readonly tokens: Token[]) {}

  private get tok(): Token {
    return this.tokens[this.at]!;
  }

  /** The current token's type, read afresh (a getter's result would stay narrowed across calls). */
  private kind(): TokenType {
    return this.tokens[this.at]!.type;
  }

  document(): HclNode {
    const items = this.objectList('EOF');
    return { type: 'object', items, pos: { line: 1, col: 1 } };
  }

  private objectList(end: 'EOF' | 'RBRACE'): HclItem[] {
    const items: HclItem[] = [];
    while (this.kind() !== end) {
      if (this.kind() === 'EOF') throw new HclError(this.tok.pos, 'object expected closing RBRACE got: EOF');
      items.push(this.objectItem());
      if (this.kind() === 'COMMA') this.at++;
    }
    return items;
  }

  private objectItem(): HclItem {
    const pos = this.tok.pos;
    const keys: string[] = [];
    while (this.tok.type === 'IDENT' || this.tok.type === 'STRING') {
      keys.push(this.tok.text);
      this.at++;
    }
    if (keys.length === 0) throw new HclError(this.tok.pos, `expected: IDENT | STRING got: ${this.tok.type}`);
    if (this.tok.type === 'ASSIGN') {
      if (keys.length > 1) throw new HclError(this.tok.pos, `nested object expected: LBRACE got: ASSIGN`);
      this.at++;
      return { keys, value: this.value(), pos };
    }
    if (this.tok.type === 'LBRACE') return { keys, value: this.value(), pos };
    throw new HclError(this.tok.pos, `key '${keys.join(' ')}' expected start of object ('{') or assignment ('=')`);
  }

  private value(): HclNode {
    const t = this.tok;
    switch (t.type) {
      case 'STRING':
      case 'NUMBER':
      case 'BOOL':
        this.at++;
        return { type: 'literal', value: t.text, token: t.type, pos: t.pos };
      case 'LBRACE': {
        this.at++;
        const items = this.objectList('RBRACE');
        this.at++;
        return { type: 'object', items, pos: t.pos };
      }
      case 'LBRACK': {
        this.at++;
        const values: HclNode[] = [];
        while (this.kind() !== 'RBRACK') {
          if (this.kind() === 'EOF') throw new HclError(this.tok.pos, 'list expected closing RBRACK got: EOF');
          values.push(this.value());
          if (this.kind() === 'COMMA') this.at++;
          else if (this.kind() !== 'RBRACK') throw new HclError(this.tok.pos, `list expected comma or list end, got: ${this.tok.type}`);
        }
        this.at++;
        return { type: 'list', values, pos: t.pos };
      }
      default:
        throw new HclError(t.pos, `Unknown token: ${t.pos.line}:${t.pos.col} ${t.type}${t.text ? ` ${t.text}` : ''}`);
    }
  }
}

/** JSON as HCL v1 reads it: objects become item lists, scalars literals. */
function fromJson(v: unknown, pos: Pos): HclNode {
  if (Array.isArray(v)) return { type: 'list', values: v.map((x) => fromJson(x, pos)), pos };
  if (v !== null && typeof v === 'object') {
    return { type: 'object', items: Object.entries(v).map(([k, x]) => ({ keys: [k], value: fromJson(x, pos), pos })), pos };
  }
  if (typeof v === 'string') return { type: 'literal', value: v, token: 'STRING', pos };
  if (typeof v === 'number') return { type: 'literal', value: String(v), token: 'NUMBER', pos };
  if (typeof v === 'boolean') return { type: 'literal', value: String(v), token: 'BOOL', pos };
  throw new HclError(pos, 'null is not a value');
}

/** Parses a rules document; throws HclError. */
export function parseHcl(src: string): HclNode {
  if (src.trimStart().startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(src);
    } catch (err) {
      throw new HclError({ line: 1, col: 1 }, `invalid JSON: ${(err as Error).message}`);
    }
    return fromJson(json, { line: 1, col: 1 });
  }
  return new Parser(lex(src)).document();
}
