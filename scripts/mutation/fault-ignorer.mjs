// A Stryker ignorer (https://stryker-mutator.io/docs/stryker-js/disable-mutants/#using-an-ignore-plugin):
// the reference's fault switches are not mutated. A field of a `flaws` object (`flaws.readAsWrite`,
// `this.flaws.ignoreSourceNamespace`) counts as one: those objects carry only fault switches down. A fault check `faults.has('<system>.<fault>')`
// is constant false in a run with no fault on, as every mutation run is, so a mutant of it, or of
// the code only a fault turns on, could only be told apart with that fault on: the fault matrix
// (`stackproof faults`) proves each fault is caught, and its mutants would be noise here (Ignored,
// outside the score).
const FAULT_ID = /^(secrets|mesh|scheduler)\.[a-z0-9][a-z0-9-]*$/;
const REASON = 'fault switch of the catalog (src/reference/faults): off in every mutation run, judged by `stackproof faults`';

/** `flaws`, `aclFlaws`, `this.flaws`, `rules.flaws`: the fault switches a caller passes down as an options object. */
function isFlawsObject(node) {
  const name = node?.type === 'Identifier' ? node.name : node?.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier' ? node.property.name : '';
  return /^(flaws|[a-z]+Flaws)$/.test(name);
}

function isFaultCheck(node) {
  // A switch handed down (mesh's CheckFlaws, MatchFlaws: each field is set by one fault only).
  if (node?.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier' && isFlawsObject(node.object)) return true;
  return (
    node?.type === 'CallExpression' &&
    node.callee.type === 'MemberExpression' &&
    !node.callee.computed &&
    node.callee.property.type === 'Identifier' &&
    node.callee.property.name === 'has' &&
    node.arguments.length === 1 &&
    node.arguments[0].type === 'StringLiteral' &&
    FAULT_ID.test(node.arguments[0].value)
  );
}

/**
 * Stryker places a condition's own mutants before it visits the branches: the branch's parent then
 * holds `stryMutAct_…("id") ? <mutant> : (stryCov_…("id"), <original>)`. The original is what decides.
 */
function original(node) {
  if (node?.type === 'ConditionalExpression' && node.test.type === 'CallExpression' && node.test.callee.type === 'Identifier' && node.test.callee.name.startsWith('stryMutAct_')) return original(node.alternate);
  if (node?.type === 'SequenceExpression') return original(node.expressions[node.expressions.length - 1]);
  if (node?.type === 'ParenthesizedExpression') return original(node.expression);
  return node;
}

/** A condition that can be true only with a fault on: the check itself, or an && chain holding one. */
function onlyWithFault(condition) {
  const node = original(condition);
  if (isFaultCheck(node)) return true;
  return node?.type === 'LogicalExpression' && node.operator === '&&' && (onlyWithFault(node.left) || onlyWithFault(node.right));
}

/** A condition that can be false only with a fault on: `!faults.has(…)`. */
function negatedFaultCheck(condition) {
  const node = original(condition);
  return node?.type === 'UnaryExpression' && node.operator === '!' && isFaultCheck(original(node.argument));
}

/**
 * Whether evaluating a node can change state: a call (other than a fault check or Stryker's own
 * bookkeeping), an assignment, an update, a delete, `new` or `await`. Such an operand is evaluated
 * even where its value does not matter, so its mutants stay.
 */
function mayAct(node) {
  if (!node || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(mayAct);
  if (node.type === 'CallExpression') {
    if (isFaultCheck(node)) return false;
    const name = node.callee?.type === 'Identifier' ? node.callee.name : '';
    if (!name.startsWith('stryMutAct_') && !name.startsWith('stryCov_')) return true;
  }
  if (['AssignmentExpression', 'UpdateExpression', 'NewExpression', 'AwaitExpression', 'YieldExpression'].includes(node.type)) return true;
  if (node.type === 'UnaryExpression' && node.operator === 'delete') return true;
  return Object.entries(node).some(([k, v]) => k !== 'loc' && k !== 'start' && k !== 'end' && typeof v === 'object' && mayAct(v));
}

export const faultIgnorer = {
  shouldIgnore(path) {
    const node = path.node;
    const parent = path.parent;
    // The check, negated or not: with no fault on, `true`/`false` in its place is either what it
    // already is (equivalent) or the fault switched on for good (the fault matrix's case).
    if (isFaultCheck(node) || negatedFaultCheck(node)) return REASON;
    if (!parent) return undefined;
    // The branch a fault turns on: if (fault) <here>; fault ? <here> : …; fault && <here>
    if ((parent.type === 'IfStatement' || parent.type === 'ConditionalExpression') && parent.consequent === node && onlyWithFault(parent.test)) return REASON;
    if ((parent.type === 'IfStatement' || parent.type === 'ConditionalExpression') && parent.alternate === node && negatedFaultCheck(parent.test)) return REASON;
    if (parent.type === 'LogicalExpression' && parent.operator === '&&' && parent.right === node && onlyWithFault(parent.left)) return REASON;
    // The other operand of such an &&: `x && faults.has(…)` is false with no fault on whatever x
    // is, so a mutant of x can only be told apart with the fault on (unless x acts: then it stays).
    if (parent.type === 'LogicalExpression' && parent.operator === '&&' && parent.left === node && onlyWithFault(parent.right) && !mayAct(node)) return REASON;
    return undefined;
  },
};

export const strykerPlugins = [{ kind: 'Ignore', name: 'stackproof-faults', value: faultIgnorer }];
