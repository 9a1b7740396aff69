import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyError, readBody } from '../http/body.ts';
import type { RouteContext } from '../http/router.ts';
import type { AclTokens } from './acl.ts';
import { decodeCaConfigurationRequest } from './ca-configuration.ts';
import { ConsulError } from './consul-errors.ts';
import type { CertificateAuthority } from './certificate-authority.ts';

export interface CaConfigurationRoutesOptions {
  ca: CertificateAuthority;
  acl: AclTokens;
  /** Plain-text error with the headers the agent puts on every answer. */
  plain(res: ServerResponse, status: number, message: string): void;
  json(res: ServerResponse, body: unknown): void;
  /** A 200 with no body: what Consul's HTTP wrapper writes for a handler that returns nothing. */
  empty(res: ServerResponse): void;
  /** Wakes what waits on the roots and leaves after a rotation. */
  rotated(): void;
}

/**
 * GET and PUT /v1/connect/ca/configuration of the hashicorp dialect (agent/connect_ca_endpoint.go
 * ConnectCAConfigurationGet/Set, agent/consul/connect_ca_endpoint.go ConfigurationGet/Set). Both
 * need operator:write (the API docs: GET needed operator:read before 1.8.6, when the stored
 * configuration was found to hold the CA's private key). Errors are plain text (see CaRefusal for
 * their status); a PUT that works answers 200 with an empty body, as the handler returns nothing.
 */
export class CaConfigurationRoutes {
  constructor(private readonly options: CaConfigurationRoutesOptions) {}

  get({ req, res, url }: RouteContext): void {
    req.resume();
    if (this.refused(req, url, res)) return;
    // The configuration as stored: Config is the client's map, a PrivateKey it set included, as
    // Consul shows it to holders of operator:write; keys the CA generated itself are never in it.
    this.options.json(res, this.options.ca.configuration());
  }

  async put({ req, res, url }: RouteContext): Promise<void> {
    let raw: Buffer;
    try {
      raw = await readBody(req, 1024 * 1024);
    } catch (err) {
      if (err instanceof BodyError) return this.options.plain(res, err.status, err.message);
      throw err;
    }
    const decoded = decodeCaConfigurationRequest(raw);
    if (!decoded.ok) return this.options.plain(res, 400, `Request decode failed: ${decoded.message}`);
    if (this.refused(req, url, res)) return;
    const result = await this.options.ca.updateConfiguration(decoded.value);
    if (!result.ok) return this.options.plain(res, result.status, result.message);
    if (result.rotated) this.options.rotated();
    this.options.empty(res);
  }

  /** operator:write, refused in acl.PermissionDeniedError's words; an unknown token is "ACL not found". */
  private refused(req: IncomingMessage, url: URL, res: ServerResponse): boolean {
    const { acl } = this.options;
    try {
      const authz = acl.authorize(acl.secretOf(req, url));
      if (authz.allowedScalar('operator', 'write')) return false;
      this.options.plain(res, 403, acl.denied(authz, 'operator:write').message);
    } catch (err) {
      if (!(err instanceof ConsulError)) throw err;
      this.options.plain(res, err.status, err.message);
    }
    return true;
  }
}
