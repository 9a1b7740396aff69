import type { FaultSet } from '../faults/types.ts';

/**
 * Where each engine type takes a name as a path parameter (spec 000, Endpoints: ':name' is a path
 * segment), below its mount. One table for every engine, so the trailing-period convention is
 * decided in one place, before any engine sees the request. The identity store's named keys are
 * Vault's (hashicorp dialect): Vault checks every such name with one pattern
 * (sdk/framework/path.go GenericNameRegex).
 */
const NAMED_SEGMENTS: Record<string, RegExp> = {
  identity: /^(oidc\/(?:provider|scope|client|assignment|key)\/)([^/]+)(\/.*)?$/,
  cloudauth: /^(role\/)([^/]+)(\/.*)?$/,
};

export type PathParameterCheck = { kind: 'ok'; path: string } | { kind: 'unsupported'; name: string };

/**
 * Spec 000: "Path parameters must not end with a period; otherwise the service answers 404
 * (unsupported path)." Returns the path the engine is to see, or that the route is unsupported.
 */
export function checkPathParameters(engineType: string, path: string, faults: FaultSet): PathParameterCheck {
  const m = NAMED_SEGMENTS[engineType]?.exec(path);
  // The fault: a route pattern not anchored at its end, so segments after a name that has no
  // sub-routes (all but a provider's) are ignored and the name alone is taken.
  if (m && m[3] && m[3] !== '/' && !m[1]!.startsWith('oidc/provider/') && faults.has('secrets.name-pattern-unanchored')) return { kind: 'ok', path: `${m[1]}${m[2]}` };
  if (!m || !m[2]!.endsWith('.')) return { kind: 'ok', path };
  // A name normalised by dropping its trailing periods (the fault): the route then reaches the
  // resource named without them.
  if (faults.has('secrets.trailing-period-stripped')) return { kind: 'ok', path: `${m[1]}${m[2]!.replace(/\.+$/, '')}${m[3] ?? ''}` };
  if (faults.has('secrets.trailing-period-accepted')) return { kind: 'ok', path };
  return { kind: 'unsupported', name: m[2]! };
}
