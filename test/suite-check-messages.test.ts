import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/run-cli.ts';

/**
 * A check of a condition (`toBe(true)`, `toBe(false)`, `toBeTruthy()`, `toBeFalsy()`) fails with
 * the values true and false, which tell a reader nothing; the report says what was expected in the
 * check's own words (src/report/failure-words.ts). So every such check in the suites carries a
 * message: `expect(cond, 'what must hold')`.
 */
describe('every boolean check in the suites says what it checks', () => {
  it('has a message on each expect(…) whose matcher is toBe(true|false), toBeTruthy or toBeFalsy', () => {
    const bare: string[] = [];
    for (const file of tsFiles(join(ROOT, 'suites'))) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && isBooleanMatcher(node)) {
          const call = expectCallOf(node.expression.expression);
          if (call && call.arguments.length < 2) {
            const { line } = source.getLineAndCharacterOfPosition(node.getStart());
            bare.push(`${relative(ROOT, file)}:${line + 1}: ${node.getText().slice(0, 100)}`);
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(bare, 'boolean checks without a message').toEqual([]);
  });
});

function isBooleanMatcher(call: ts.CallExpression): boolean {
  const name = (call.expression as ts.PropertyAccessExpression).name.text;
  if (name === 'toBeTruthy' || name === 'toBeFalsy') return true;
  const arg = call.arguments[0];
  return name === 'toBe' && call.arguments.length === 1 && arg !== undefined && (arg.kind === ts.SyntaxKind.TrueKeyword || arg.kind === ts.SyntaxKind.FalseKeyword);
}

/** The `expect(…)` call under a matcher, through `.not`, `.resolves` and `.rejects`. */
function expectCallOf(node: ts.Expression): ts.CallExpression | undefined {
  let at: ts.Expression = node;
  while (ts.isPropertyAccessExpression(at)) at = at.expression;
  if (ts.isAwaitExpression(at)) at = at.expression;
  return ts.isCallExpression(at) && ts.isIdentifier(at.expression) && at.expression.text === 'expect' ? at : undefined;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}
