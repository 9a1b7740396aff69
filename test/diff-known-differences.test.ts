import { describe, expect, it } from 'vitest';
import { SYSTEMS } from '../src/config/names.ts';
import { globMatches } from '../src/diff/glob.ts';
import { loadKnownDifferences } from '../src/diff/known-differences.ts';
import { endpointKey, symbolsIn, type SymbolicRequest } from '../src/diff/request-template.ts';
import { casesOf } from '../src/diff/run-diff.ts';
import { hasStatement, SILENCE } from '../src/diff/spec-word.ts';
import { systemKit } from '../src/diff/system-kit.ts';
import { normalizeSpecText, readSpec } from '../src/rules/spec-text.ts';
import { SPEC_FILES } from '../src/rules/spec-files.ts';

/**
 * docs/reference-fidelity.md's table of known differences is read by `stackproof diff` on every
 * run: it must stay parseable, and each row must speak of an endpoint and a kind of request the diff
 * sends, or it could never match (a row that lists nothing hides nothing, but misleads the reader).
 */

const rows = loadKnownDifferences();

describe('the known-differences table of docs/reference-fidelity.md', () => {
  it('parses, with rows for each product the CI diffs against', () => {
    for (const product of ['nomad', 'consul', 'openbao'] as const) expect(rows.filter((r) => r.product === product).length, product).toBeGreaterThan(3);
  });

  it('names in every row an endpoint of its system the diff sends to, and a class of request sent there', () => {
    const problems: string[] = [];
    for (const r of rows) {
      const [method, path] = [r.endpoint.slice(0, r.endpoint.indexOf(' ')), r.endpoint.slice(r.endpoint.indexOf(' ') + 1)];
      const endpoints = systemKit(r.system).endpoints.filter((e) => globMatches(method, e.method) && globMatches(path, e.path));
      if (!endpoints.length) problems.push(`line ${r.line}: ${r.endpoint} is no ${r.system} endpoint of the diff (${systemKit(r.system).endpoints.map(endpointKey).join('; ')})`);
      else if (r.class !== '*' && !endpoints.some((e) => e.requests.some((t) => t.class === r.class))) problems.push(`line ${r.line}: the diff sends no ${r.class} request to ${r.endpoint}`);
    }
    expect(problems).toEqual([]);
  });
});

describe("the diff's endpoint catalog", () => {
  it('cites statements that exist, and quotes the spec where it says it is silent', () => {
    for (const system of SYSTEMS) {
      for (const e of systemKit(system).endpoints) for (const id of e.statements) expect(hasStatement(id), `${endpointKey(e)}: ${id}`).toBe(true);
      for (const e of systemKit(system).endpoints) for (const t of e.requests) if (t.stated) expect(hasStatement(t.stated.statement), t.stated.statement).toBe(true);
      const spec = normalizeSpecText(readSpec(SPEC_FILES[system]));
      expect(spec, `${system}: the spec's own words of silence`).toContain(normalizeSpecText(SILENCE[system].errors.quote));
    }
  });

  it('sends every class of request to the endpoints of each system, and names only fixtures and tokens the fixture makers give', () => {
    const given: Record<string, string[]> = {
      scheduler: ['node', 'alloc', 'done', 'job', 'otherNs', 'metaKey', 'prefix', 'tokNone', 'tokNodeRead', 'tokReadJob', 'tokOtherNs'],
      mesh: ['svc', 'src', 'denied', 'other', 'trustDomain', 'prefix', 'tokSvc', 'tokOther'],
      // code, accessToken and wrongBasic are made per request by the templates' preparation.
      secrets: ['kv1', 'kv2', 'key', 'scope', 'assignment', 'client', 'provider', 'clientId', 'entityId', 'redirectUri', 'basic', 'prefix', 'cloudauth', 'role', 'ns', 'tokEntity', 'code', 'accessToken', 'wrongBasic'],
    };
    for (const system of SYSTEMS) {
      const classes = new Set<string>();
      for (const e of systemKit(system).endpoints) {
        for (const t of e.requests) {
          classes.add(t.class);
          for (const req of casesOf(t, 1, 3)) {
            const used = [...symbolsOfRequest(req), ...(req.token.kind === 'fixture' ? [req.token.symbol] : [])];
            for (const s of used) expect(given[system], `${endpointKey(e)} ${t.what}: @{${s}}`).toContain(s);
          }
        }
      }
      for (const c of ['ok', 'no-token', 'wrong-token', 'forbidden', 'wrong-type']) expect([...classes], system).toContain(c);
    }
  });
});

function symbolsOfRequest(req: SymbolicRequest): string[] {
  const texts = [req.path, ...Object.values(req.query ?? {}).flat(), ...Object.values(req.headers ?? {}), JSON.stringify(req.json ?? null), JSON.stringify(req.form ?? null), req.body ?? ''];
  return texts.flatMap(symbolsIn);
}
