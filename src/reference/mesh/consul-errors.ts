/**
 * A refusal of an admin endpoint, answered as plain text with `status` (agent/http.go
 * HTTPHandlers.wrap). Where Consul answers a validation error from its RPC layer with 500 (the
 * default branch of handleErr), the reference answers 400 with the same words: bad input is a
 * client error here, and the text is what a client reads either way.
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
export const notFound = (message: string) => new ConsulError(404, message);
export const forbidden = (message: string) => new ConsulError(403, message);

/** acl.ErrPermissionDenied: what Consul answers when an RPC refuses without naming the permission. */
export const PERMISSION_DENIED = 'Permission denied';

/** hashicorp/go-multierror's text, as Consul's "Request decoding failed" answers carry it. */
export function multierrorText(errors: string[]): string {
  const head = errors.length === 1 ? '1 error occurred:' : `${errors.length} errors occurred:`;
  return `${head}\n${errors.map((e) => `\t* ${e}`).join('\n')}\n\n`;
}
