import { isIP } from 'node:net';

/**
 * The network a CIDR block (or a bare address, a host block) stands for, as "address/prefix" with
 * the host bits cleared; undefined for text that is no block. Two texts of the same block compare
 * equal: Vault reads "10.0.0.5/32" back as "10.0.0.5" (go-sockaddr IPv4Addr.String prints a host
 * block without its suffix), and the spec only speaks of "addresses in these CIDR blocks".
 */
export function networkOf(text: string): string | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return undefined;
  const value = version === 4 ? ipv4ToBigInt(address) : ipv6ToBigInt(address);
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  return `${version === 4 ? bigIntToIpv4(value & mask) : bigIntToIpv6(value & mask)}/${prefix}`;
}

/** The networks of a list of blocks, in order; an entry that is no block stays as written (so it never equals a block). */
export function networksOf(texts: readonly string[]): string[] {
  return texts.map((t) => networkOf(t) ?? `not a block: ${t}`);
}

function ipv4ToBigInt(address: string): bigint {
  return address.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function bigIntToIpv4(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
}

function ipv6ToBigInt(address: string): bigint {
  let text = address;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipv4ToBigInt(v4[1]!);
    text = `${text.slice(0, -v4[1]!.length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function bigIntToIpv6(n: bigint): string {
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((n >> s) & 0xffffn).toString(16));
  return groups.join(':');
}
