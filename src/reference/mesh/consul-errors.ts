/**
 * A refusal of an admin endpoint, answered as plain text with `status` (agent/http.go
 * HTTPHandlers.wrap, handleErr). The HTTP layer's own refusals (a query parameter, a body that does
 * not decode) are HTTPError / BadRequestError: 400 with their reason. A validation error that
 * comes back from an RPC (Intention.Apply, ConfigEntry.Apply, the state store's service-graph
 * check) is a plain error: handleErr has no branch for it and answers 500 with its text — see
 * rpcError. Real Consul 1.8.7 answers so (e.g. POST /v1/connect/intentions with Action "maybe":
 * 500 "1 error occurred:\n\t* Action must be set to 'allow' or 'deny'\n\n").
 */
export class ConsulError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ConsulError(400, message);
/** A validation error returned by an RPC: agent/http.go handleErr's default branch, 500 with the error's text. */
export const rpcError = (message: string) => new ConsulError(500, message);
export const notFound = (message: string) => new ConsulError(404, message);
export const forbidden = (message: string) => new ConsulError(403, message);

/** acl.ErrPermissionDenied: what Consul answers when an RPC refuses without naming the permission. */
export const PERMISSION_DENIED = 'Permission denied';

/** hashicorp/go-multierror's text, as Consul's "Request decoding failed" answers carry it. */
export function multierrorText(errors: string[]): string {
  const head = errors.length === 1 ? '1 error occurred:' : `${errors.length} errors occurred:`;
  return `${head}\n${errors.map((e) => `\t* ${e}`).join('\n')}\n\n`;
}
