/**
 * The spec uses neutral names where the upstream products have branded ones. A dialect maps every
 * such name, so no suite hard-codes a header or mount path and the same suites run against either.
 */
export type DialectName = 'spec' | 'hashicorp';

export interface Dialect {
  name: DialectName;
  secrets: {
    tokenHeader: string;
    namespaceHeader: string;
    requestHeader: string;
    cloudAuthMount: string;
  };
  mesh: {
    namespaceHeader: string;
    token: TokenCarrier;
    indexHeader: string;
  };
  scheduler: {
    token: TokenCarrier;
  };
}

/** How an ACL token travels: a header, optionally with an auth scheme before the value. */
export interface TokenCarrier {
  header: string;
  scheme?: 'Bearer';
}

export function tokenHeaders(carrier: TokenCarrier, token: string): Record<string, string> {
  return { [carrier.header]: carrier.scheme ? `${carrier.scheme} ${token}` : token };
}

export const DIALECTS: Record<DialectName, Dialect> = {
  spec: {
    name: 'spec',
    secrets: {
      tokenHeader: 'X-Service-Token',
      namespaceHeader: 'X-Service-Namespace',
      requestHeader: 'X-Service-Request',
      cloudAuthMount: 'cloudauth',
    },
    // The mesh and scheduler specs leave the token carrier "not shown"; the spec dialect uses the
    // standard Bearer header, which both upstream products also accept.
    mesh: { namespaceHeader: 'X-Mesh-Namespace', token: { header: 'Authorization', scheme: 'Bearer' }, indexHeader: 'X-Mesh-Index' },
    scheduler: { token: { header: 'Authorization', scheme: 'Bearer' } },
  },
  hashicorp: {
    name: 'hashicorp',
    secrets: {
      tokenHeader: 'X-Vault-Token',
      namespaceHeader: 'X-Vault-Namespace',
      requestHeader: 'X-Vault-Request',
      cloudAuthMount: 'azure',
    },
    mesh: { namespaceHeader: 'X-Consul-Namespace', token: { header: 'X-Consul-Token' }, indexHeader: 'X-Consul-Index' },
    scheduler: { token: { header: 'X-Nomad-Token' } },
  },
};

export function dialectFor(name: DialectName): Dialect {
  return DIALECTS[name];
}
