import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { FaultSet } from '../faults/types.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import { Router, type RouteContext, type RouteHandler } from '../http/router.ts';
import type { CertificateAuthority } from './certificate-authority.ts';

export interface MeshServiceOptions {
  dialect: Dialect;
  faults: FaultSet;
  ca: CertificateAuthority;
  managementToken: string;
}

/** The embedded service-mesh agent's connect endpoints. */
export class MeshService {
  private readonly router = new Router<RouteHandler>();

  constructor(private readonly options: MeshServiceOptions) {
    this.router.add('GET', '/v1/agent/connect/ca/roots', (ctx) => this.roots(ctx));
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
    const match = this.router.match(method, url.pathname);
    if (match.kind === 'not-found') {
      sendPlainError(res, 404, `Not Found: no endpoint at ${url.pathname}`);
      return;
    }
    if (match.kind === 'method-not-allowed') {
      sendPlainError(res, 405, `method ${method} not allowed`, { allow: ['OPTIONS', ...match.allowed].join(',') });
      return;
    }
    await match.handler({ req, res, url, params: match.params });
  }

  private roots({ res }: RouteContext): void {
    const faults = this.options.faults;
    const roots = this.options.ca.roots().map((root) => {
      const out: Record<string, unknown> = { ...root };
      if (faults.has('mesh.roots-missing-signing-key-id')) delete out.SigningKeyID;
      if (faults.has('mesh.roots-cert-der-base64')) {
        out.RootCert = root.RootCert.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
      }
      return out;
    });
    const active = this.options.ca.active.record;
    const index = Math.max(...roots.map((r) => Number(r.ModifyIndex)));
    sendJsonBody(
      res,
      200,
      {
        ActiveRootID: faults.has('mesh.roots-active-id-unknown') ? active.ID.split(':').reverse().join(':') : active.ID,
        TrustDomain: this.options.ca.trustDomain,
        Roots: roots,
      },
      { [this.options.dialect.mesh.indexHeader]: String(index) },
    );
  }
}
