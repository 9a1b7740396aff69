import { BlockList, isIP } from 'node:net';

/** A CIDR block or a bare address; throws on anything else. */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } {
  const [address = '', prefixText] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0) throw new Error(`"${text}" is not a CIDR block or an IP address`);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? String(max)) || prefix < 0 || prefix > max) throw new Error(`"${text}" has an invalid prefix length`);
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether an address (as Node reports a peer, possibly IPv4-mapped IPv6) falls in any of the blocks. */
export function inCidrs(address: string | undefined, cidrs: string[]): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const list = new BlockList();
  for (const c of cidrs) {
    const { address: a, prefix, family } = parseCidr(c);
    list.addSubnet(a, prefix, family);
  }
  return list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
}
