/** A constraint as the job carries it (api.Constraint). */
export interface ConstraintSpec {
  LTarget?: string;
  RTarget?: string;
  Operand?: string;
}

/** What of the node a constraint can name. */
export interface NodeFacts {
  id: string;
  name: string;
  datacenter: string;
  nodeClass: string;
  nodePool: string;
  attributes: Record<string, string>;
  meta: Record<string, string>;
}

/**
 * A constraint target's value on the node, or undefined where the node has none: a literal is
 * itself, and ${node.unique.id}, ${node.datacenter}, ${node.unique.name}, ${node.class},
 * ${node.pool}, ${attr.<name>} and ${meta.<name>} name the node's fields (scheduler/feasible.go
 * resolveTarget, v1.9.7..main).
 */
export function resolveTarget(target: string, node: NodeFacts): string | undefined {
  if (!target.startsWith('${')) return target;
  const fixed: Record<string, string> = { '${node.unique.id}': node.id, '${node.datacenter}': node.datacenter, '${node.unique.name}': node.name, '${node.class}': node.nodeClass, '${node.pool}': node.nodePool };
  if (target in fixed) return fixed[target];
  const inner = /^\$\{(attr|meta)\.(.*)\}$/.exec(target);
  if (!inner) return undefined;
  const from = inner[1] === 'attr' ? node.attributes : node.meta;
  return Object.hasOwn(from, inner[2]!) ? from[inner[2]!] : undefined;
}

/** Integers, then floats, then text, as scheduler/feasible.go checkOrder compares. */
function ordered(op: string, l: string, r: string): boolean {
  const int = /^[+-]?\d+$/;
  const asNumbers = (int.test(l) && int.test(r)) || (!Number.isNaN(Number(l)) && !Number.isNaN(Number(r)) && l.trim() !== '' && r.trim() !== '');
  const a: number | string = asNumbers ? Number(l) : l;
  const b: number | string = asNumbers ? Number(r) : r;
  if (op === '<') return a < b;
  if (op === '<=') return a <= b;
  if (op === '>') return a > b;
  return a >= b;
}

const setOf = (s: string) => new Set(s.split(',').map((x) => x.trim()));

/**
 * Whether the node meets one constraint (scheduler/feasible.go checkConstraint, v1.9.7..main):
 * equality needs both sides present, inequality does not; is_set and is_not_set look at the left
 * side only; distinct_hosts and distinct_property hold on one node. The version and semver operands
 * are not implemented here: such a constraint is never met, and the evaluation says which one.
 */
export function meetsConstraint(c: ConstraintSpec, node: NodeFacts): boolean {
  const op = c.Operand || '=';
  if (op === 'distinct_hosts' || op === 'distinct_property') return true;
  const l = resolveTarget(c.LTarget ?? '', node);
  const r = resolveTarget(c.RTarget ?? '', node);
  switch (op) {
    case '=':
    case '==':
    case 'is':
      return l !== undefined && r !== undefined && l === r;
    case '!=':
    case 'not':
      return l !== r;
    case '<':
    case '<=':
    case '>':
    case '>=':
      return l !== undefined && r !== undefined && ordered(op, l, r);
    case 'is_set':
      return l !== undefined;
    case 'is_not_set':
      return l === undefined;
    case 'regexp':
      if (l === undefined || r === undefined) return false;
      try {
        return new RegExp(r).test(l);
      } catch {
        return false;
      }
    case 'set_contains':
    case 'set_contains_all': {
      if (l === undefined || r === undefined) return false;
      const have = setOf(l);
      return [...setOf(r)].every((x) => have.has(x));
    }
    case 'set_contains_any': {
      if (l === undefined || r === undefined) return false;
      const have = setOf(l);
      return [...setOf(r)].some((x) => have.has(x));
    }
    default:
      return false;
  }
}

/** How Nomad names a filtering constraint in an evaluation's FailedTGAllocs (structs.Constraint.String). */
export function constraintLabel(c: ConstraintSpec): string {
  return `${c.LTarget ?? ''} ${c.Operand || '='} ${c.RTarget ?? ''}`;
}

/** Whether a job's datacenters take the node's (globs with *, as Nomad 1.5 and later match them). */
export function datacenterMatches(datacenters: string[], dc: string): boolean {
  return datacenters.some((pattern) => new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(dc));
}
