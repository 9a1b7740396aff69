/**
 * Why go-memdb's UUIDFieldIndex refuses an ID as an index argument (hashicorp/go-memdb index.go
 * UUIDFieldIndex.parseString with enforceLength, which Nomad's state store uses for allocation and
 * node IDs), or undefined when it takes it: 36 characters, at most four hyphens, an even number of
 * hex digits. An ID it takes but that names nothing is Nomad's "Unknown allocation".
 */
export function memdbUuidError(id: string): string | undefined {
  if (id.length !== 36) return 'UUID must be 36 characters';
  const hyphens = id.split('-').length - 1;
  if (hyphens > 4) return `UUID should have maximum of 4 "-"; got ${hyphens}`;
  const digits = id.replaceAll('-', '');
  if (digits.length % 2 !== 0) return 'Input (without hyphens) must be even length';
  // encoding/hex DecodeString: the first byte that is not a hex digit (an InvalidByteError), as %q of its rune.
  const bad = [...digits].find((c) => !/[0-9a-fA-F]/.test(c));
  if (bad !== undefined) return `Invalid UUID: encoding/hex: invalid byte: U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} ${runeLiteral(bad)}`;
  return undefined;
}

/** fmt's %q of a rune, for the printable ASCII an ID is made of; others escaped as Go does. */
function runeLiteral(c: string): string {
  const cp = c.codePointAt(0)!;
  if (c === "'") return "'\\''";
  if (c === '\\') return "'\\\\'";
  if (cp >= 0x20 && cp < 0x7f) return `'${c}'`;
  if (cp < 0x80) return `'\\x${cp.toString(16).padStart(2, '0')}'`;
  return `'${c}'`;
}
