/**
 * Who may reach what across the secrets service's namespaces (spec 000, Authentication 3), written
 * from the spec's sentences and, where the spec is silent, from the upstream products' documented
 * behaviour (marked UPSTREAM). Pure data and functions: the access-rule suites ask the target and
 * judge its answers here.
 */

/** A namespace path: '' for the root, else segments each ending in '/' ('team-a/app/'). */
export type NamespacePath = string;

/** '' for the root namespace, else the segments with one trailing slash, however the slashes were given. */
export function normalizeNamespace(raw: string | undefined): NamespacePath {
  const parts = (raw ?? '').split('/').filter(Boolean);
  return parts.map((p) => `${p}/`).join('');
}

/**
 * The path a request names once its header is applied. Spec 000, Authentication 3: "the request
 * path is relative to the X-Service-Namespace header. With path secret/foo and header 'ns1/ns2/'
 * the effective path is ns1/ns2/secret/foo." The header is a namespace path, so a header given
 * without its trailing slash ('ns1') still ends at a segment boundary: it names namespace ns1/.
 */
export function effectivePath(header: string | undefined, path: string): string {
  return normalizeNamespace(header) + path;
}

/** Whether `inner` is `outer` or lies below it, segment by segment ('a/' does not contain 'ab/'). */
export function within(inner: NamespacePath, outer: NamespacePath): boolean {
  // Both end in '/' (or are the root ''), so a plain prefix test stops at segment boundaries.
  return normalizeNamespace(inner).startsWith(normalizeNamespace(outer));
}

/**
 * The namespace an effective path falls in, and the path within it: the deepest existing namespace
 * whose segments begin the path. Spec 000, Authentication 3: "Using the full path without the
 * header, or splitting the namespace between header and path, is equivalent."
 */
export function resolve(existing: readonly NamespacePath[], fullPath: string): { namespace: NamespacePath; rest: string } {
  let best: NamespacePath = '';
  for (const ns of existing) {
    if (ns !== '' && fullPath.startsWith(ns) && ns.length > best.length) best = ns;
  }
  return { namespace: best, rest: fullPath.slice(best.length) };
}

/** Every cut of `namespace` + `rest` between header and path at a segment boundary (the spec's equivalent requests). */
export function segmentSplits(namespace: NamespacePath, rest: string): { header: string; path: string }[] {
  const parts = normalizeNamespace(namespace).split('/').filter(Boolean);
  const cuts: { header: string; path: string }[] = [];
  for (let i = 0; i <= parts.length; i++) {
    cuts.push({ header: parts.slice(0, i).map((p) => `${p}/`).join(''), path: parts.slice(i).map((p) => `${p}/`).join('') + rest });
  }
  return cuts;
}

/** A namespace's incarnation: deleting a namespace and making one of the same path gives a new one. */
export interface NamespaceIncarnation {
  path: NamespacePath;
  /** Counts the times a namespace of this path was made. */
  generation: number;
}

/** A secret as the model knows it: where it was written and what it holds. */
export interface StoredSecret {
  namespace: NamespaceIncarnation;
  /** The path within the namespace (mount and key). */
  rest: string;
  value: Record<string, string>;
}

/** What a read may answer: the value found, or not found / forbidden, never a neighbour's value. */
export type ReadOutcome = { kind: 'value'; value: Record<string, string> } | { kind: 'absent' } | { kind: 'denied' };

/**
 * What a read of (header, path) may find, with a token of namespace `tokenNamespace` (undefined: the
 * root token, which reaches everything). `live` are the namespaces that exist now.
 *
 * - Spec 000, Authentication 3: the path is resolved in the namespace the header and path name
 *   together, so only a secret written at that namespace's incarnation and relative path is found.
 * - Not shown by the spec (UPSTREAM): a token belongs to the namespace it was made in and reaches
 *   that namespace and the namespaces below it, never its parent, a sibling or a namespace whose
 *   name merely begins like its own (Vault Enterprise docs, "Namespaces": "tokens are tied to the
 *   namespace they were created in ... can be used in that namespace and its child namespaces";
 *   openbao/openbao vault/request_handling.go CheckToken: a token whose namespace is not the
 *   request's or a parent of it is refused). A token of a deleted namespace reaches nothing, also
 *   not a namespace later made with the same path (openbao vault/namespace_store.go deletes the
 *   namespace's tokens with it; Vault Enterprise revokes them).
 */
export function readOutcome(args: {
  live: readonly NamespaceIncarnation[];
  secrets: readonly StoredSecret[];
  header: string | undefined;
  path: string;
  token?: NamespaceIncarnation;
}): ReadOutcome {
  const full = effectivePath(args.header, args.path);
  const { namespace, rest } = resolve(
    args.live.map((n) => n.path),
    full,
  );
  const incarnation = args.live.find((n) => n.path === namespace) ?? { path: '', generation: 0 };
  if (args.token) {
    const tokenLive = args.live.some((n) => n.path === args.token!.path && n.generation === args.token!.generation);
    if (!tokenLive || !within(namespace, args.token.path)) return { kind: 'denied' };
  }
  const found = args.secrets.find((s) => s.namespace.path === incarnation.path && s.namespace.generation === incarnation.generation && s.rest === rest);
  return found ? { kind: 'value', value: found.value } : { kind: 'absent' };
}

/**
 * Whether a status and body fit the model's outcome. A value is a 200 with exactly that value; a
 * path where nothing was written is 404 (Errors: "404 | Invalid path"). A refused token is 403
 * (Errors: "403 | Forbidden: wrong authentication") or 404 (Authentication 7: "a path the caller
 * may not see can answer 404"): `denied` is either, and never a value.
 */
export function fits(outcome: ReadOutcome, status: number, value: unknown): boolean {
  if (outcome.kind === 'value') return status === 200 && sameFields(value, outcome.value);
  if (outcome.kind === 'absent') return status === 404;
  return status === 403 || status === 404;
}

/** The same string fields, in any order (the spec orders no JSON object's keys). */
function sameFields(value: unknown, expected: Record<string, string>): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const got = value as Record<string, unknown>;
  const keys = Object.keys(expected);
  return Object.keys(got).length === keys.length && keys.every((k) => got[k] === expected[k]);
}

/**
 * What LIST sys/namespaces answers in `parent`: the keys of the namespaces directly below it, each
 * its last segment with the trailing slash. Not shown by the spec (UPSTREAM): Vault Enterprise's API
 * docs ("List namespaces": "lists all the namespaces" of the request's namespace, keys such as
 * "bar/") and OpenBao (openbao/openbao vault/logical_system_namespaces.go handleNamespacesList:
 * ListNamespaces without recursion, each path trimmed of the parent's). Order is not given: compare
 * as sets. An empty result is 404 (spec 000, Endpoints: "When the result is empty the status is 404").
 */
export function childKeys(existing: readonly NamespacePath[], parent: NamespacePath): string[] {
  const p = normalizeNamespace(parent);
  return existing
    .map((ns) => normalizeNamespace(ns))
    .filter((ns) => ns !== p && ns.startsWith(p) && ns.slice(p.length).split('/').filter(Boolean).length === 1)
    .map((ns) => ns.slice(p.length));
}
