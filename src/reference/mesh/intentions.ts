import { randomUUID } from 'node:crypto';

/** An intention as authorize and the listings see it: one source of a destination's service-intentions entry. */
export interface Intention {
  /** The legacy ID (intentions made by ID, e.g. through the control interface); '' for config-entry ones. */
  id: string;
  sourceNs: string;
  source: string;
  destinationNs: string;
  destination: string;
  /** Absent on an L7 intention made as Consul makes them (Permissions instead of Action). */
  action?: 'allow' | 'deny';
  /** Layer-7 permissions; the spec says authorize treats any intention that has them as deny. */
  permissions?: unknown[];
  description?: string;
  /** The entry's Meta, or a legacy intention's own. */
  meta?: Record<string, string>;
  precedence: number;
  createIndex: number;
  modifyIndex: number;
  createdAt?: Date;
  updatedAt?: Date;
}

/** One source of a service-intentions config entry (agent/structs/config_entry_intentions.go SourceIntention). */
export interface SourceIntention {
  name: string;
  namespace: string;
  action?: 'allow' | 'deny';
  permissions?: Record<string, unknown>[];
  precedence: number;
  description?: string;
  legacyId?: string;
  legacyMeta?: Record<string, string>;
  legacyCreateTime?: Date;
  legacyUpdateTime?: Date;
}

/** A destination's service-intentions config entry: where Consul (>= 1.9) keeps every intention. */
export interface ServiceIntentionsEntry {
  name: string;
  namespace: string;
  sources: SourceIntention[];
  meta?: Record<string, string>;
  createIndex: number;
  modifyIndex: number;
}

const WILDCARD = '*';

/** How many of namespace and name are exact (intentionCountExact). */
function countExact(ns: string, name: string): number {
  if (ns === WILDCARD) return 0;
  return name === WILDCARD ? 1 : 2;
}

/** computeIntentionPrecedence: 9 for exact names on both sides, lower the more is wildcarded. */
export function precedenceOf(destNs: string, dest: string, srcNs: string, src: string): number {
  const max = [3, 6, 9][countExact(destNs, dest)]!;
  return max - (2 - countExact(srcNs, src));
}

const matches = (pattern: string, value: string) => pattern === WILDCARD || pattern === value;

/** IntentionPrecedenceSorter: precedence first, then the 4-tuple, so the order is always the same. */
function byPrecedence(a: Intention, b: Intention): number {
  if (a.precedence !== b.precedence) return b.precedence - a.precedence;
  const ka = [a.sourceNs, a.source, a.destinationNs, a.destination];
  const kb = [b.sourceNs, b.source, b.destinationNs, b.destination];
  for (let i = 0; i < 4; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
  return 0;
}

/**
 * The intentions the agent decides connections by, kept as Consul keeps them: one service-intentions
 * entry per destination, each source one intention. The control interface's intentions are legacy
 * intentions (they have an ID); those made through the admin API have none. Both views — the entry
 * and the intention list — are computed from the same records, so they always agree.
 */
/** How many source/destination pairs match remembers before it starts afresh. */
const MATCH_MEMO_LIMIT = 10_000;

/** Wrong ways of matching that only the fault catalog turns on (src/reference/faults/mesh.ts). */
export interface MatchFlaws {
  /** mesh.intention-source-namespace-ignored: a source matches by name in any namespace. */
  ignoreSourceNamespace?: boolean;
  /** mesh.intention-wildcard-destination-outranks-source: the source's exactness is weighed before the destination's. */
  sourceFirstPrecedence?: boolean;
}

/** The precedence with the sides swapped: what mesh.intention-wildcard-destination-outranks-source orders by. */
const sourceFirst = (i: Intention) => precedenceOf(i.sourceNs, i.source, i.destinationNs, i.destination);

export class IntentionStore {
  private readonly entries = new Map<string, ServiceIntentionsEntry>();
  /** Set by the agent from its faults; none without them. */
  flaws: MatchFlaws = {};
  /** The agent's index (set by the admin routes; the control interface alone needs none). */
  nextIndex: () => number = () => 0;
  /** Goes up on every change of any entry, so what is derived from the whole set can be kept until it does. */
  private changes = 0;
  /**
   * The intentions in precedence order as of `changes`, and the decisions made from them, for
   * match (authorize asks on every request); both are dropped when the set changes.
   */
  private ordered: { version: number; list: readonly Intention[]; matched: Map<string, Intention | undefined> } | undefined;

  get version(): number {
    return this.changes;
  }

  private key(ns: string, name: string): string {
    return `${ns}/${name}`;
  }

  private touch(entry: ServiceIntentionsEntry): void {
    this.changes += 1;
    entry.sources.sort((a, b) => b.precedence - a.precedence);
    entry.modifyIndex = this.nextIndex();
    this.entries.set(this.key(entry.namespace, entry.name), entry);
  }

  private toIntention(entry: ServiceIntentionsEntry, src: SourceIntention): Intention {
    return {
      id: src.legacyId ?? '',
      sourceNs: src.namespace,
      source: src.name,
      destinationNs: entry.namespace,
      destination: entry.name,
      ...(src.action ? { action: src.action } : {}),
      ...(src.permissions?.length ? { permissions: src.permissions } : {}),
      ...(src.description ? { description: src.description } : {}),
      ...(src.legacyId ? (src.legacyMeta && Object.keys(src.legacyMeta).length ? { meta: src.legacyMeta } : {}) : entry.meta ? { meta: entry.meta } : {}),
      precedence: src.precedence,
      createIndex: entry.createIndex,
      modifyIndex: entry.modifyIndex,
      ...(src.legacyCreateTime ? { createdAt: src.legacyCreateTime } : {}),
      ...(src.legacyUpdateTime ? { updatedAt: src.legacyUpdateTime } : {}),
    };
  }

  /** Reference setup (control interface): a legacy intention with an ID; it replaces one with the same source. */
  add(i: { sourceNs: string; source: string; destinationNs: string; destination: string; action: 'allow' | 'deny'; permissions?: unknown[] }): Intention {
    const now = new Date();
    const src: SourceIntention = {
      name: i.source,
      namespace: i.sourceNs,
      action: i.action,
      ...(i.permissions?.length ? { permissions: i.permissions as Record<string, unknown>[] } : {}),
      precedence: precedenceOf(i.destinationNs, i.destination, i.sourceNs, i.source),
      legacyId: randomUUID(),
      legacyCreateTime: now,
      legacyUpdateTime: now,
    };
    const entry = this.upsertSource(i.destinationNs, i.destination, src);
    return this.toIntention(entry, src);
  }

  /** Removes a legacy intention by ID; deleting the last source deletes the entry. */
  remove(id: string): boolean {
    for (const entry of this.entries.values()) {
      const at = entry.sources.findIndex((s) => s.legacyId === id);
      if (at < 0) continue;
      this.deleteSource(entry.namespace, entry.name, entry.sources[at]!.namespace, entry.sources[at]!.name);
      return true;
    }
    return false;
  }

  byId(id: string): Intention | undefined {
    return this.list().find((i) => i.id !== '' && i.id === id);
  }

  /** The intention from exactly this source to exactly this destination (IntentionGetExact). */
  exact(srcNs: string, src: string, destNs: string, dest: string): Intention | undefined {
    const entry = this.entries.get(this.key(destNs, dest));
    const s = entry?.sources.find((x) => x.name === src && x.namespace === srcNs);
    return entry && s ? this.toIntention(entry, s) : undefined;
  }

  /** Adds or replaces the source with the same name (IntentionMutation upsert, UpsertSourceByName). */
  upsertSource(destNs: string, dest: string, src: SourceIntention): ServiceIntentionsEntry {
    const existing = this.entries.get(this.key(destNs, dest));
    const entry: ServiceIntentionsEntry = existing ?? { name: dest, namespace: destNs, sources: [], createIndex: this.nextIndex(), modifyIndex: 0 };
    const at = entry.sources.findIndex((s) => s.name === src.name && s.namespace === src.namespace);
    if (at >= 0) {
      // A legacy source keeps its ID and creation time when it is replaced by name.
      const prior = entry.sources[at]!;
      if (prior.legacyId && src.legacyId) src.legacyId = prior.legacyId;
      if (prior.legacyCreateTime && src.legacyId) src.legacyCreateTime = prior.legacyCreateTime;
      entry.sources[at] = src;
    } else entry.sources.push(src);
    this.touch(entry);
    return entry;
  }

  /** Deletes one source; true when there was one. By-name deletions are idempotent. */
  deleteSource(destNs: string, dest: string, srcNs: string, src: string): boolean {
    const entry = this.entries.get(this.key(destNs, dest));
    const at = entry ? entry.sources.findIndex((s) => s.name === src && s.namespace === srcNs) : -1;
    if (!entry || at < 0) return false;
    entry.sources.splice(at, 1);
    this.changes += 1;
    if (entry.sources.length === 0) this.entries.delete(this.key(destNs, dest));
    else this.touch(entry);
    return true;
  }

  entry(ns: string, name: string): ServiceIntentionsEntry | undefined {
    return this.entries.get(this.key(ns, name));
  }

  listEntries(ns?: string): ServiceIntentionsEntry[] {
    return [...this.entries.values()].filter((e) => ns === undefined || e.namespace === ns).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Replaces a whole entry (a config-entry write); the caller has validated it. */
  putEntry(entry: Omit<ServiceIntentionsEntry, 'createIndex' | 'modifyIndex'>): ServiceIntentionsEntry {
    const prior = this.entries.get(this.key(entry.namespace, entry.name));
    const stored: ServiceIntentionsEntry = { ...entry, createIndex: prior?.createIndex ?? this.nextIndex(), modifyIndex: 0 };
    this.touch(stored);
    return stored;
  }

  deleteEntry(ns: string, name: string): boolean {
    this.changes += 1;
    return this.entries.delete(this.key(ns, name));
  }

  dropNamespace(ns: string): void {
    this.changes += 1;
    for (const [k, e] of this.entries) if (e.namespace === ns || e.sources.some((s) => s.namespace === ns)) {
      e.sources = e.sources.filter((s) => s.namespace !== ns);
      if (e.namespace === ns || e.sources.length === 0) this.entries.delete(k);
    }
  }

  /** Every intention, in precedence order (Intention.List). */
  list(): Intention[] {
    return [...this.entries.values()].flatMap((e) => e.sources.map((s) => this.toIntention(e, s))).sort(byPrecedence);
  }

  /** The first intention for a destination whatever its source: the fault that ignores the source. */
  matchDestination(destinationNs: string, destination: string): Intention | undefined {
    const entry = this.entries.get(this.key(destinationNs, destination));
    return entry?.sources[0] ? this.toIntention(entry, entry.sources[0]) : undefined;
  }

  /**
   * The intention that decides a connection: of those whose destination and source match (exactly
   * or by a `*` wildcard), the one of highest precedence (agent/connect_auth.go ConnectAuthorize over
   * Intention.Match by destination).
   */
  match(sourceNs: string, source: string, destinationNs: string, destination: string): Intention | undefined {
    if (this.ordered?.version !== this.changes) {
      const list = this.flaws.sourceFirstPrecedence ? [...this.list()].sort((a, b) => sourceFirst(b) - sourceFirst(a)) : this.list();
      this.ordered = { version: this.changes, list, matched: new Map() };
    }
    // Each part led by its length, so no two pairs share a key (names may hold any character);
    // authorize asks on every request, and JSON.stringify of the four cost three times this.
    const key = `${sourceNs.length}:${sourceNs}${source.length}:${source}${destinationNs.length}:${destinationNs}${destination.length}:${destination}`;
    const { matched } = this.ordered;
    const known = matched.get(key);
    if (known !== undefined || matched.has(key)) return known;
    // Bounded: many distinct pairs (a load test's) start the memo afresh rather than grow it.
    if (matched.size >= MATCH_MEMO_LIMIT) matched.clear();
    const found = this.ordered.list.find((i) => matches(i.destinationNs, destinationNs) && matches(i.destination, destination) && (this.flaws.ignoreSourceNamespace || matches(i.sourceNs, sourceNs)) && matches(i.source, source));
    matched.set(key, found);
    return found;
  }
}

/**
 * The action an intention would have if its permissions were ignored: its own, or (an L7 intention
 * made as Consul makes them, with no action) that of its first permission. Only a fault uses it.
 */
export function actionIgnoringPermissions(i: Intention): 'allow' | 'deny' | undefined {
  if (i.action) return i.action;
  const first = i.permissions?.[0] as { Action?: unknown } | undefined;
  return first?.Action === 'allow' || first?.Action === 'deny' ? first.Action : undefined;
}

/**
 * The intention as a Reason names it.
 * - `consul`: like Consul's Intention.String (agent/structs/intention.go): source and destination,
 *   the ID where it has one, the precedence, then `Action: ALLOW|DENY`, or `Permissions: N` for a
 *   layer-7 intention.
 * - `spec`: the reference's own wording, with the action in lower case.
 */
export function describeIntention(i: Intention, style: 'spec' | 'consul' = 'spec'): string {
  const layer7 = (i.permissions?.length ?? 0) > 0;
  if (style === 'consul') {
    const detail = layer7 ? `Permissions: ${i.permissions!.length}` : `Action: ${(i.action ?? '').toUpperCase()}`;
    const idPart = i.id ? `ID: ${i.id}, ` : '';
    return `${i.sourceNs}/${i.source} => ${i.destinationNs}/${i.destination} (${idPart}Precedence: ${i.precedence}, ${detail})`;
  }
  return `${i.sourceNs}/${i.source} => ${i.destinationNs}/${i.destination} (${i.action ?? 'permissions only'}${layer7 ? ', with permissions' : ''}, id ${i.id})`;
}

/** The fault that drops the action from the Reason: source and destination only. */
export function describeIntentionWithoutAction(i: Intention): string {
  return `${i.sourceNs}/${i.source} => ${i.destinationNs}/${i.destination}`;
}
