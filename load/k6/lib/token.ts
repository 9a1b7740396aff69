import { env } from './env.ts';

/**
 * The mesh agent's and the scheduler's token header: the spec dialect's `Authorization: Bearer`
 * unless SP_TOKEN_HEADER / SP_TOKEN_SCHEME say otherwise (stackproof sets them from the target's
 * dialect: `X-Consul-Token` or `X-Nomad-Token` with no scheme for the hashicorp dialect).
 */
export function authHeaders(token: string): Record<string, string> {
  const scheme = env('TOKEN_SCHEME', 'Bearer');
  return { [env('TOKEN_HEADER', 'Authorization')]: scheme ? `${scheme} ${token}` : token };
}
