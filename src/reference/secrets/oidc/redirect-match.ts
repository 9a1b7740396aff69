import type { FaultSet } from '../../faults/types.ts';
import type { SecretsFlavor } from '../flavor.ts';

/** Hosts Vault treats as loopback when it matches redirect URIs (RFC 8252 section 7.3). */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'];

/** scheme://, the host (bracketed for IPv6), an optional :port, then the rest, taken as written. */
const AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)(\[[^\]]*\]|[^/:?#]*)(:\d*)?(.*)$/s;

interface Parts {
  scheme: string;
  host: string;
  rest: string;
}

function parts(uri: string): Parts | undefined {
  const m = AUTHORITY.exec(uri);
  if (!m) return undefined;
  return { scheme: m[1]!, host: m[2]!.replace(/^\[|\]$/g, ''), rest: m[4]! };
}

/**
 * Whether `uri` may be used as the redirect_uri of an authentication request for a client that
 * registered `registered`. The spec: one registered value must exactly equal it. Vault compares
 * strings exactly too, except for a loopback host, where it ignores the port (hashicorp/vault
 * vault/identity_store_oidc_provider_util.go validRedirect): the upstream behaviour does the same.
 */
export function redirectAllowed(uri: string, registered: string[], faults: FaultSet, flavor: SecretsFlavor): boolean {
  if (faults.has('secrets.oidc-redirect-prefix-match')) return registered.some((r) => uri.startsWith(r));
  // A registered value exactly equal is allowed by every rule below (the loopback ones too).
  if (registered.includes(uri)) return true;
  if (faults.has('secrets.oidc-redirect-query-ignored') && registered.includes(uri.split('?')[0]!)) return true;
  const asked = parts(uri);
  const loopback = asked !== undefined && LOOPBACK_HOSTS.includes(asked.host);
  if (loopback && faults.has('secrets.oidc-redirect-loopback-any-path')) {
    return registered.some((r) => {
      const p = parts(r);
      return p !== undefined && p.scheme === asked.scheme && p.host === asked.host;
    });
  }
  if (loopback && flavor.vaultDeviations) {
    return registered.some((r) => {
      const p = parts(r);
      return p !== undefined && p.scheme === asked.scheme && p.host === asked.host && p.rest === asked.rest;
    });
  }
  return false;
}

/** The token call must repeat the authorize request's redirect_uri exactly (spec 000, Token parameters). */
export function redirectRepeated(uri: string, atAuthorize: string, faults: FaultSet): boolean {
  if (faults.has('secrets.oidc-token-redirect-unchecked')) return true;
  if (faults.has('secrets.oidc-token-redirect-prefix')) return atAuthorize.startsWith(uri) || uri.startsWith(atAuthorize);
  return uri === atAuthorize;
}
