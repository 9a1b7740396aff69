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

/**
 * Whether an address (as Node reports a peer, possibly IPv4-mapped IPv6) falls in any of the blocks.
 * An IPv4-mapped peer (::ffff:10.0.0.1, what a dual-stack listener reports for an IPv4 client) needs
 * no unwrapping: node:net's BlockList matches it against IPv4 blocks and an IPv4 peer against
 * ::ffff:0:0/96 blocks (nodejs.org/api/net.html, blockList.check). An entry that is no block (kept
 * only by the upstream behaviour, as a Unix socket path) contains no network peer, so it matches
 * nothing.
 */
export function inCidrs(address: string | undefined, cidrs: string[], byBytes = false): boolean {
  if (!address) return false;
  const list = new BlockList();
  for (const c of cidrs) {
    let block: ReturnType<typeof parseCidr>;
    try {
      block = parseCidr(c);
    } catch {
      continue;
    }
    // byBytes: the fault secrets.cloudauth-cidr-by-bytes, a prefix rounded down to whole bytes.
    list.addSubnet(block.address, byBytes ? block.prefix - (block.prefix % 8) : block.prefix, block.family);
  }
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * How Vault reads a bound CIDR back: go-sockaddr's IPv4Addr/IPv6Addr String() (hashicorp/go-sockaddr
 * ipv4addr.go, ipv6addr.go) prints a host block (/32, /128) as the bare address and keeps any other
 * block as written. An entry that is no block (kept by the upstream behaviour as a Unix socket path)
 * comes back quoted twice: UnixSock String() is fmt.Sprintf("%+q", path) (go-sockaddr unixsock.go)
 * and that text is JSON-encoded again on its way to the body; OpenBao 2.6.2 reads "10.0.0.0/33" back
 * as "\"\\\"10.0.0.0/33\\\"\"" in the raw body. %+q and JSON quote printable ASCII alike.
 */
export function upstreamCidrText(text: string): string {
  try {
    const { address, prefix, family } = parseCidr(text);
    return prefix === (family === 'ipv4' ? 32 : 128) ? address : `${address}/${prefix}`;
  } catch {
    return JSON.stringify(JSON.stringify(text.trim()));
  }
}

/**
 * go-sockaddr NewSockAddr (hashicorp/go-sockaddr sockaddr.go) takes a string that is neither an IPv4
 * nor an IPv6 address or block as a Unix socket path when it is longer than one character and starts
 * with '.' or '/' or contains a '/': so Vault's token_bound_cidrs accepts "10.0.0.0/33".
 */
export function upstreamTakesAsSocketPath(text: string): boolean {
  return text.length > 1 && (text.startsWith('.') || text.startsWith('/') || text.includes('/'));
}
