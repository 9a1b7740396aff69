import { HclError, parseHcl, type HclItem, type HclNode } from './hcl-lite.ts';

/**
 * Consul's ACL rules (acl/policy.go, acl/policy_authorizer.go): parsed from HCL or JSON, checked as
 * PolicyRules.Validate checks them, and evaluated as the policy authorizer does — an exact rule
 * beats a prefix rule, the longest prefix wins, and where several policies name the same thing the
 * strongest word wins (deny, then write, list, read).
 */
export type Access = 'deny' | 'read' | 'list' | 'write';

/** Resources whose rules are keyed by a name or prefix. */
export type SegmentResource = 'agent' | 'key' | 'node' | 'service' | 'intention' | 'session' | 'event' | 'query';
/** Resources with one rule each. */
export type ScalarResource = 'acl' | 'keyring' | 'operator' | 'mesh' | 'peering';

interface SegmentRules {
  exact: Map<string, Access>;
  prefix: Map<string, Access>;
}

export interface PolicyRules {
  segments: Record<SegmentResource, SegmentRules>;
  scalars: Partial<Record<ScalarResource, Access>>;
}

export type ParsedRules = { ok: true; rules: PolicyRules } | { ok: false; message: string };

/** The block kinds, with the Go struct and key field that Consul's "Invalid ... policy: %#v" shows. */
const BLOCKS: Record<string, { resource: Exclude<SegmentResource, 'intention'>; prefix: boolean; goType: string; keyField: string; listOk: boolean; enterprise: boolean }> = {
  agent: { resource: 'agent', prefix: false, goType: 'AgentRule', keyField: 'Node', listOk: false, enterprise: false },
  agent_prefix: { resource: 'agent', prefix: true, goType: 'AgentRule', keyField: 'Node', listOk: false, enterprise: false },
  key: { resource: 'key', prefix: false, goType: 'KeyRule', keyField: 'Prefix', listOk: true, enterprise: true },
  key_prefix: { resource: 'key', prefix: true, goType: 'KeyRule', keyField: 'Prefix', listOk: true, enterprise: true },
  node: { resource: 'node', prefix: false, goType: 'NodeRule', keyField: 'Name', listOk: false, enterprise: true },
  node_prefix: { resource: 'node', prefix: true, goType: 'NodeRule', keyField: 'Name', listOk: false, enterprise: true },
  service: { resource: 'service', prefix: false, goType: 'ServiceRule', keyField: 'Name', listOk: false, enterprise: true },
  service_prefix: { resource: 'service', prefix: true, goType: 'ServiceRule', keyField: 'Name', listOk: false, enterprise: true },
  session: { resource: 'session', prefix: false, goType: 'SessionRule', keyField: 'Node', listOk: false, enterprise: false },
  session_prefix: { resource: 'session', prefix: true, goType: 'SessionRule', keyField: 'Node', listOk: false, enterprise: false },
  event: { resource: 'event', prefix: false, goType: 'EventRule', keyField: 'Event', listOk: false, enterprise: false },
  event_prefix: { resource: 'event', prefix: true, goType: 'EventRule', keyField: 'Event', listOk: false, enterprise: false },
  query: { resource: 'query', prefix: false, goType: 'PreparedQueryRule', keyField: 'Prefix', listOk: false, enterprise: false },
  query_prefix: { resource: 'query', prefix: true, goType: 'PreparedQueryRule', keyField: 'Prefix', listOk: false, enterprise: false },
};
const SCALARS: ScalarResource[] = ['acl', 'keyring', 'operator', 'mesh', 'peering'];
/** PolicyRules.Validate's order: the first invalid rule in this order is the one reported. */
const VALIDATION_ORDER = ['acl', 'agent', 'agent_prefix', 'key', 'key_prefix', 'node', 'node_prefix', 'service', 'service_prefix', 'session', 'session_prefix', 'event', 'event_prefix', 'query', 'query_prefix', 'keyring', 'operator', 'mesh', 'peering'];

interface RawRule {
  block: string;
  name: string;
  policy: string;
  intentions: string;
}

const PRECEDENCE: Access[] = ['deny', 'write', 'list', 'read'];
const strongest = (a: Access, b: Access) => (PRECEDENCE.indexOf(a) <= PRECEDENCE.indexOf(b) ? a : b);

function emptyRules(): PolicyRules {
  const seg = (): SegmentRules => ({ exact: new Map(), prefix: new Map() });
  return { segments: { agent: seg(), key: seg(), node: seg(), service: seg(), intention: seg(), session: seg(), event: seg(), query: seg() }, scalars: {} };
}

/** hcl's decodeString: strings, numbers and booleans all decode into a string field. */
function stringOf(node: HclNode, name: string): string {
  if (node.type === 'literal') return node.value;
  throw new HclError(node.pos, `${name}: unknown type for string *ast.${node.type === 'object' ? 'ObjectType' : 'ListType'}`);
}

/** Expands `a "b" { ... }` into `a = { b = { ... } }`, as hcl's decoder sees it. */
function nested(item: HclItem): HclNode {
  let value = item.value;
  for (let k = item.keys.length - 1; k >= 1; k--) value = { type: 'object', items: [{ keys: [item.keys[k]!], value, pos: item.pos }], pos: item.pos };
  return value;
}

/** The fields of one rule body; field names match in any case, unknown ones are ignored (hcl.Decode). */
function ruleBody(node: HclNode, block: string, name: string): { policy: string; intentions: string } {
  const bodies = node.type === 'list' ? node.values : [node];
  const out = { policy: '', intentions: '' };
  const seen = new Map<string, HclItem>();
  for (const body of bodies) {
    if (body.type !== 'object') throw new HclError(body.pos, `${block}.${name}: should be an object`);
    for (const item of body.items) {
      const field = item.keys[0]!.toLowerCase();
      if (field !== 'policy' && !(field === 'intentions' && block.startsWith('service'))) continue;
      if (item.keys.length > 1) throw new HclError(item.pos, `${block}.${name}.${item.keys[0]}: unknown type for string *ast.ObjectType`);
      const prior = seen.get(field);
      if (prior) throw new HclError(item.pos, `The argument ${JSON.stringify(item.keys[0])} at ${prior.pos.line}:${prior.pos.col} was already set. Each argument can only be defined once`);
      seen.set(field, item);
      out[field as 'policy' | 'intentions'] = stringOf(item.value, item.keys[0]!);
    }
  }
  return out;
}

function decode(doc: HclNode): { raw: RawRule[]; scalars: Partial<Record<ScalarResource, string>> } {
  const raw: RawRule[] = [];
  const scalars: Partial<Record<ScalarResource, string>> = {};
  if (doc.type !== 'object') throw new HclError(doc.pos, 'root should be an object');
  for (const item of doc.items) {
    const key = item.keys[0]!;
    const lower = key.toLowerCase();
    if ((SCALARS as string[]).includes(lower)) {
      if (item.keys.length > 1) throw new HclError(item.pos, `${key}: unknown type for string *ast.ObjectType`);
      scalars[lower as ScalarResource] = stringOf(item.value, key);
      continue;
    }
    if (!BLOCKS[lower]) continue;
    const value = nested(item);
    const groups = value.type === 'list' ? value.values : [value];
    for (const group of groups) {
      if (group.type !== 'object') throw new HclError(group.pos, `${key}: should be an object`);
      for (const labelled of group.items) {
        const name = labelled.keys[0]!;
        const body = ruleBody(nested({ ...labelled, keys: labelled.keys }), lower, name);
        raw.push({ block: lower, name, ...body });
      }
    }
  }
  return { raw, scalars };
}

function accessOf(word: string, listOk: boolean): Access | undefined {
  const w = word.toLowerCase();
  if (w === 'deny' || w === 'read' || w === 'write') return w;
  return w === 'list' && listOk ? 'list' : undefined;
}

/** Go's %#v of the rule pointer, as Consul's "Invalid <block> policy" message prints it. */
function goRule(r: RawRule): string {
  const b = BLOCKS[r.block]!;
  const fields = [`${b.keyField}:${JSON.stringify(r.name)}`, `Policy:${JSON.stringify(r.policy)}`];
  if (b.goType === 'ServiceRule') fields.push(`Intentions:${JSON.stringify(r.intentions)}`);
  if (b.enterprise) fields.push('EnterpriseRule:acl.EnterpriseRule{}');
  return `&acl.${b.goType}{${fields.join(', ')}}`;
}

/** Parses and validates rules text (ACL.PolicySet's acl.NewPolicyFromSource). */
export function parseRules(text: string): ParsedRules {
  const rules = emptyRules();
  if (text === '') return { ok: true, rules };
  let decoded: ReturnType<typeof decode>;
  try {
    decoded = decode(parseHcl(text));
  } catch (err) {
    if (err instanceof HclError) return { ok: false, message: `Failed to parse ACL rules: ${err.message}` };
    throw err;
  }
  for (const kind of VALIDATION_ORDER) {
    if ((SCALARS as string[]).includes(kind)) {
      const word = decoded.scalars[kind as ScalarResource];
      if (word === undefined || word === '') continue;
      const access = accessOf(word, false);
      if (!access) return { ok: false, message: `Invalid ${kind} policy: ${JSON.stringify(word)}` };
      rules.scalars[kind as ScalarResource] = access;
      continue;
    }
    const block = BLOCKS[kind]!;
    for (const r of decoded.raw.filter((x) => x.block === kind)) {
      const access = accessOf(r.policy, block.listOk);
      if (!access) return { ok: false, message: `Invalid ${kind} policy: ${goRule(r)}` };
      let intention: Access | undefined;
      if (block.resource === 'service') {
        if (r.intentions !== '' && !accessOf(r.intentions, false)) return { ok: false, message: `Invalid ${kind} intentions policy: ${goRule(r)}` };
        // A service rule without `intentions` grants intention read with read or write, else deny.
        intention = r.intentions !== '' ? accessOf(r.intentions, false) : access === 'deny' ? 'deny' : 'read';
      }
      addRule(rules, block.resource, block.prefix, r.name, access);
      if (intention) addRule(rules, 'intention', block.prefix, r.name, intention);
    }
  }
  return { ok: true, rules };
}

function addRule(rules: PolicyRules, resource: SegmentResource, prefix: boolean, name: string, access: Access): void {
  const map = prefix ? rules.segments[resource].prefix : rules.segments[resource].exact;
  const prior = map.get(name);
  map.set(name, prior ? strongest(prior, access) : access);
}

/** acl.MergePolicies: one rule set out of several, the strongest word winning per name. */
export function mergeRules(sets: PolicyRules[]): PolicyRules {
  const out = emptyRules();
  for (const set of sets) {
    for (const [resource, seg] of Object.entries(set.segments) as [SegmentResource, SegmentRules][]) {
      for (const [name, access] of seg.exact) addRule(out, resource, false, name, access);
      for (const [name, access] of seg.prefix) addRule(out, resource, true, name, access);
    }
    for (const [resource, access] of Object.entries(set.scalars) as [ScalarResource, Access][]) {
      const prior = out.scalars[resource];
      out.scalars[resource] = prior ? strongest(prior, access) : access;
    }
  }
  return out;
}

export type Decision = 'allow' | 'deny' | 'default';

/** acl/policy_authorizer.go enforce: what a rule's word grants for the access asked for. */
function enforce(rule: Access, need: Access): Decision {
  if (rule === 'write') return 'allow';
  if (rule === 'list') return need === 'list' || need === 'read' ? 'allow' : 'deny';
  if (rule === 'read') return need === 'read' ? 'allow' : 'deny';
  return 'deny';
}

/**
 * How a check can be wrong (the fault catalog's ACL faults): an exact rule read as a prefix, a
 * read rule taken for write. The product's check has none of them.
 */
export interface CheckFlaws {
  exactAsPrefix?: boolean;
  readAsWrite?: boolean;
  /** mesh.acl-exact-deny-yields-to-prefix: an exact deny is passed over for the prefix rules. */
  exactDenyYieldsToPrefix?: boolean;
}

/** The rule that applies to a name: the exact one, else the longest prefix (getPolicy). */
function ruleFor(seg: SegmentRules, name: string, flaws: CheckFlaws): Access | undefined {
  const exact = seg.exact.get(name);
  if (exact && !(flaws.exactDenyYieldsToPrefix && exact === 'deny')) return exact;
  let best: string | undefined;
  const prefixes = flaws.exactAsPrefix ? new Map([...seg.prefix, ...seg.exact]) : seg.prefix;
  for (const p of prefixes.keys()) if (name.startsWith(p) && (best === undefined || p.length > best.length)) best = p;
  return best === undefined ? undefined : prefixes.get(best);
}

export function decideSegment(rules: PolicyRules, resource: SegmentResource, name: string, need: Access, flaws: CheckFlaws = {}): Decision {
  const rule = ruleFor(rules.segments[resource], name, flaws);
  return rule ? enforce(rule, flaws.readAsWrite && need === 'write' ? 'read' : need) : 'default';
}

export function decideScalar(rules: PolicyRules, resource: ScalarResource, need: Access): Decision {
  // mesh and peering fall back to operator when unset (policy_authorizer.go MeshRead/PeeringRead).
  const rule = rules.scalars[resource] ?? (resource === 'mesh' || resource === 'peering' ? rules.scalars.operator : undefined);
  return rule ? enforce(rule, need) : 'default';
}

/** The rules of a service identity (structs.ACLServiceIdentity.SyntheticPolicy, aclServiceIdentityRules). */
export function serviceIdentityRules(service: string): string {
  return [`service "${service}" {`, '\tpolicy = "write"', '}', `service "${service}-sidecar-proxy" {`, '\tpolicy = "write"', '}', 'service_prefix "" {', '\tpolicy = "read"', '}', 'node_prefix "" {', '\tpolicy = "read"', '}'].join('\n');
}
