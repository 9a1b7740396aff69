/**
 * The parsers Nomad's Constraint.Validate (nomad/structs/structs.go, v1.9.7..main) runs on RTarget,
 * re-implemented for their error texts:
 *  - "regexp": Go's regexp.Compile (RE2 syntax, regexp/syntax). Only the common syntax errors are
 *    recognised (unbalanced parentheses, unterminated class, nothing to repeat, trailing backslash);
 *    anything else that JavaScript's RegExp also rejects is reported with Go's generic shape.
 *  - "version": hashicorp/go-version v1.7.0 NewConstraint ("Malformed constraint: <part>").
 *  - "semver": Nomad's helper/constraints/semver NewConstraint (same shape, no "~>").
 */

/** regexp/syntax Error.Error: "error parsing regexp: <code>: `<expr>`". */
function reErr(code: string, expr: string): string {
  return `error parsing regexp: ${code}: \`${expr}\``;
}

/** The error Go's regexp.Compile gives for `re`, or null when it compiles (as far as this check sees). */
export function goRegexpError(re: string): string | null {
  const opens: number[] = [];
  let atomBefore = false; // whether a repetition operator here has something to repeat
  let repeat: 'none' | 'op' | 'lazy' = 'none'; // whether the previous token was a repetition operator
  for (let i = 0; i < re.length; i++) {
    const c = re[i]!;
    if (c !== '*' && c !== '+' && c !== '?') repeat = 'none';
    if (c === '\\') {
      if (i + 1 >= re.length) return reErr('trailing backslash at end of expression', '');
      const n = re[i + 1]!;
      // Go accepts punctuation escapes, the Perl/RE2 letter classes and \0-\7 octal; a lone \1-\9 is a
      // backreference, which RE2 does not support.
      const octal = /[1-7]/.test(n) && /[0-7]/.test(re[i + 2] ?? '');
      if (/[0-9A-Za-z]/.test(n) && !/[aftnrvdDsSwWbBAzpPxQE0]/.test(n) && !octal) {
        return reErr('invalid escape sequence', `\\${n}`);
      }
      i++;
      atomBefore = true;
      continue;
    }
    if (c === '[') {
      // A class runs to the first "]" that is not its first character.
      let j = i + 1;
      if (re[j] === '^') j++;
      if (re[j] === ']') j++;
      for (; j < re.length && re[j] !== ']'; j++) {
        if (re[j] === '\\') j++;
        else if (re[j] === '[' && re[j + 1] === ':') {
          const end = re.indexOf(':]', j + 2);
          if (end > 0) j = end + 1;
        }
      }
      if (j >= re.length) return reErr('missing closing ]', re.slice(i));
      i = j;
      atomBefore = true;
      continue;
    }
    if (c === '(') {
      opens.push(i);
      if (re[i + 1] === '?') {
        // flags or named group: skip to ":" / ")" / ">"
        const m = /^\(\?(P?<[A-Za-z0-9_]+>|[imsU-]*:|[imsU-]*\))/.exec(re.slice(i));
        if (!m) return reErr('invalid or unsupported Perl syntax', re.slice(i, i + 3));
        if (m[0].endsWith(')')) opens.pop();
        i += m[0].length - 1;
      }
      atomBefore = false;
      continue;
    }
    if (c === ')') {
      if (opens.length === 0) return reErr('unexpected )', re);
      opens.pop();
      atomBefore = true;
      continue;
    }
    if (c === '|') { atomBefore = false; continue; }
    if (c === '*' || c === '+' || c === '?') {
      if (!atomBefore) {
        return reErr('missing argument to repetition operator', c);
      }
      // A repetition of a repetition ("a**", "a+*") is refused by Go; one "?" right after an operator makes it lazy.
      if (repeat === 'op' && c === '?') { repeat = 'lazy'; continue; }
      if (repeat !== 'none') return reErr('invalid nested repetition operator', `${re[i - 1]}${c}`);
      repeat = 'op';
      continue;
    }
        atomBefore = true;
  }
  if (opens.length > 0) return reErr('missing closing )', re);
  try {
    new RegExp(re);
  } catch {
    // JavaScript refuses it and none of the checks above named why: Go most likely refuses too.
    return reErr('invalid or unsupported Perl syntax', re);
  }
  return null;
}

// hashicorp/go-version version.go VersionRegexpRaw (v1.7.0)
const VERSION_RAW = String.raw`v?([0-9]+(\.[0-9]+)*?)(-([0-9]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)|(-?([A-Za-z\-~]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)))?(\+([0-9A-Za-z\-~]+(\.[0-9A-Za-z\-~]+)*))??`;
// hashicorp/go-version version.go SemverRegexpRaw (v1.7.0), used by Nomad's helper/constraints/semver
const SEMVER_RAW = String.raw`v?([0-9]+(\.[0-9]+)*?)(-([0-9]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)|(-([A-Za-z\-~]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)))?(\+([0-9A-Za-z\-~]+(\.[0-9A-Za-z\-~]+)*))??`;
// go-version constraint.go operators: "", =, !=, >, <, >=, <=, ~> ; Go's \s is [\t\n\f\r ].
const VERSION_CONSTRAINT = new RegExp(String.raw`^[\t\n\f\r ]*(|=|!=|>|<|>=|<=|~>)[\t\n\f\r ]*(${VERSION_RAW})[\t\n\f\r ]*$`);
const SEMVER_CONSTRAINT = new RegExp(String.raw`^[\t\n\f\r ]*(|=|!=|>|<|>=|<=)[\t\n\f\r ]*(${SEMVER_RAW})[\t\n\f\r ]*$`);

function constraintError(v: string, re: RegExp): string | null {
  for (const single of v.split(',')) {
    if (!re.test(single)) return `Malformed constraint: ${single}`;
  }
  return null;
}

/** go-version NewConstraint's error text, or null. */
export function versionConstraintError(v: string): string | null {
  return constraintError(v, VERSION_CONSTRAINT);
}

/** helper/constraints/semver NewConstraint's error text, or null. */
export function semverConstraintError(v: string): string | null {
  return constraintError(v, SEMVER_CONSTRAINT);
}
