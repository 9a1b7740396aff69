import { describe, expect, it } from 'vitest';
import { compareAnswers } from '../src/diff/compare.ts';
import { compareFieldSets, fieldSet } from '../src/diff/field-set.ts';
import { findListing, parseKnownDifferences, TABLE_MARKER, type KnownDifference } from '../src/diff/known-differences.ts';
import { Normaliser } from '../src/diff/normalise.ts';
import { describeRequest, resolveText, resolveValue } from '../src/diff/request-template.ts';
import { casesOf } from '../src/diff/run-diff.ts';
import { generated, MANAGEMENT, unknownName } from '../src/diff/endpoints/catalog-kit.ts';

/** `stackproof diff`'s pieces without a target: what counts as the same answer, and what a listing covers. */

const ALLOC_A = '0b7e4c2a-1111-4222-8333-944455556666';
const ALLOC_B = 'f00dbabe-7777-4888-9999-aaaabbbbcccc';

describe('normalising an answer', () => {
  const a = new Normaliser({ alloc: ALLOC_A, job: 'sp-abcdefghij-ev' }, ['s3cr3t-token-value'], 'sp-abcdefghij');
  const b = new Normaliser({ alloc: ALLOC_B, job: 'sp-abcdefghij-ev' }, ['other-token-value'], 'sp-abcdefghij');

  it("writes each target's fixture values back as their symbols, so two targets' messages compare", () => {
    expect(a.text(`Unknown allocation "${ALLOC_A}"`)).toBe(b.text(`Unknown allocation "${ALLOC_B}"`));
    expect(a.text(`alloc ${ALLOC_A.slice(0, 8)} not found`)).toBe('alloc @{alloc:8} not found');
  });

  it('takes out other IDs, times, loopback addresses and a target’s own directories, and redacts secrets', () => {
    expect(a.text('token 3f0c1c9e-0000-4000-8000-000000000001 at 2026-01-02T03:04:05.678Z from 127.0.0.1:4646')).toBe('token <uuid> at <time> from <loopback>');
    expect(a.text(`open /tmp/nomad-x/data/alloc/${ALLOC_A}/main/x.txt: no such file`)).toBe(b.text(`open /opt/nomad/alloc/${ALLOC_B}/main/x.txt: no such file`));
    // A URL's path is part of the message, not a directory of the target.
    expect(a.text(`http://127.0.0.1:8200/v1/identity/oidc/provider/sp-abcdefghij-ev`)).toBe('http://<loopback>/v1/identity/oidc/provider/@{job}');
    expect(a.text('the token is s3cr3t-token-value')).not.toContain('s3cr3t');
  });

  it("compares Vault's errors list by its messages, and any other body by its text", () => {
    const vault = a.answer({ status: 400, contentType: 'application/json', text: '{"errors":["1 error occurred:\\n\\t* bad\\n\\n"]}', durationMs: 1 });
    expect(vault.error).toBe('1 error occurred:\n\t* bad');
    const plain = a.answer({ status: 500, contentType: 'text/plain', text: 'Unknown node x\n', durationMs: 1 });
    expect(plain.error).toBe('Unknown node x');
  });

  it('gives a JSON answer its field set, keys of data maps as *', () => {
    const ans = a.answer({ status: 200, contentType: 'application/json', text: JSON.stringify({ Meta: { 'node.rack': 'r1' }, Tasks: { main: { Pids: { '123': {} } } } }), durationMs: 1 }, ['Meta', '*.Pids']);
    expect(ans.fields).toEqual({ '(body)': 'object', Meta: 'object', 'Meta.*': 'string', Tasks: 'object', 'Tasks.main': 'object', 'Tasks.main.Pids': 'object', 'Tasks.main.Pids.*': 'object' });
  });
});

describe('the field set', () => {
  it('merges array elements and sees keys and types, not values', () => {
    const one = fieldSet({ a: [{ x: 1 }, { x: 2, y: 'z' }], b: null }, (k) => k);
    const two = fieldSet({ a: [{ x: 9, y: 'q' }], b: null }, (k) => k);
    expect(compareFieldSets(one, two)).toBeUndefined();
  });

  it('names the topmost missing path and type changes', () => {
    const d = compareFieldSets(fieldSet({ a: { b: { c: 1 } }, n: [] }, (k) => k), fieldSet({ n: null }, (k) => k));
    expect(d).toEqual({ onlyA: ['a'], onlyB: [], types: [{ path: 'n', a: 'array', b: 'null' }] });
  });
});

describe('comparing two answers', () => {
  const n = new Normaliser({}, [], 'sp-abcdefghij');
  const ans = (status: number, text: string, contentType = 'application/json') => n.answer({ status, contentType, text, durationMs: 1 });

  it('stops at a status that differs', () => {
    expect(compareAnswers(ans(404, 'x'), ans(200, '{"a":1}'))).toEqual([{ aspect: 'status', a: '404', b: '200' }]);
  });

  it('compares the error text of two refusals, and the media type only where there is a body', () => {
    expect(compareAnswers(ans(400, 'a', 'text/plain'), ans(400, 'b', 'text/plain'))).toEqual([{ aspect: 'error', a: 'a', b: 'b' }]);
    expect(compareAnswers(ans(204, '', 'application/json'), n.answer({ status: 204, text: '', durationMs: 1 }))).toEqual([]);
    expect(compareAnswers(ans(200, '{"a":1}', 'text/plain'), ans(200, '{"a":2}')).map((d) => d.aspect)).toEqual(['content-type']);
  });

  it('tells a target that gave no answer from one that did', () => {
    const none = n.answer({ text: '', error: 'timeout', durationMs: 1 });
    expect(compareAnswers(none, ans(200, '{}'))[0]).toMatchObject({ aspect: 'status', a: 'no answer (timeout)', b: '200' });
  });
});

describe('the known-differences table', () => {
  const doc = (rows: string[]) => ['# x', TABLE_MARKER, '', '| system | endpoint | class | differs | detail | product | versions | why |', '|---|---|---|---|---|---|---|---|', ...rows, ''].join('\n');
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const WHY = 'Nomad does it so (command/agent/http.go wrap)';

  it('reads well-formed rows and refuses a malformed one, naming its line', () => {
    const rows = parseKnownDifferences(doc([row(['scheduler', 'GET /v1/client/fs/cat/:alloc_id', '*', 'status', '* → 200', 'nomad', '>=1.6.1', WHY])]));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ class: '*', aspect: 'status', detail: '* → 200', line: 6 });
    expect(() => parseKnownDifferences(doc([row(['scheduler', 'GET /x', 'sometimes', 'status', '*', 'nomad', '*', WHY])]))).toThrow(/line 6: class "sometimes"/);
    expect(() => parseKnownDifferences(doc([row(['scheduler', 'GET /x', '*', 'status', '404', 'nomad', '*', WHY])]))).toThrow(/<reference> → <product>/);
    expect(() => parseKnownDifferences(doc([row(['scheduler', 'GET /x', '*', 'status', '*', 'nomad', 'new', WHY])]))).toThrow(/not a range/);
    expect(() => parseKnownDifferences('# no table')).toThrow(/has no/);
  });

  it('lists a difference by endpoint, class, aspect, detail, product and version, turned so the reference comes first', () => {
    const rows: KnownDifference[] = parseKnownDifferences(
      doc([
        row(['scheduler', 'GET /v1/client/fs/*', 'unknown-name', 'status', '404 → 200', 'nomad', '>=1.6.1 <2.0.0', WHY]),
        row(['scheduler', 'GET /v1/client/stats', 'ok', 'fields', 'CPU[].Total*', 'nomad', '*', WHY]),
      ]),
    );
    const where = { system: 'scheduler' as const, endpoint: 'GET /v1/client/fs/cat/:alloc_id', class: 'unknown-name' as const };
    const d = { aspect: 'status' as const, a: '404', b: '200' };
    const nomad = (version: string) => ({ referenceSide: 'a' as const, product: { key: 'nomad' as const, version } });
    expect(findListing(rows, where, d, nomad('1.6.1'))?.line).toBe(6);
    expect(findListing(rows, where, d, nomad('2.0.5')), 'outside the range').toBeUndefined();
    expect(findListing(rows, where, { aspect: 'status', a: '200', b: '404' }, { referenceSide: 'b', product: { key: 'nomad', version: '1.6.1' } })?.line, 'the reference on side b').toBe(6);
    expect(findListing(rows, where, d, undefined), 'two products: nothing is listed').toBeUndefined();
    const fields = { aspect: 'fields' as const, fields: { onlyA: ['CPU[].Total'], onlyB: ['CPU[].TotalPercent'], types: [] } };
    expect(findListing(rows, { ...where, endpoint: 'GET /v1/client/stats', class: 'ok' }, fields, nomad('2.0.5'))?.line).toBe(7);
    const more = { aspect: 'fields' as const, fields: { onlyA: ['CPU[].Total'], onlyB: ['Uptime2'], types: [] } };
    expect(findListing(rows, { ...where, endpoint: 'GET /v1/client/stats', class: 'ok' }, more, nomad('2.0.5')), 'a path no glob covers').toBeUndefined();
  });
});

describe('request templates', () => {
  it('resolves symbols per target and refuses one the target lacks', () => {
    expect(resolveText('/v1/client/fs/cat/@{alloc}?short=@{alloc:8}', { alloc: ALLOC_A })).toBe(`/v1/client/fs/cat/${ALLOC_A}?short=${ALLOC_A.slice(0, 8)}`);
    expect(resolveValue({ Meta: { '@{k}': '@{v}' } }, { k: 'key', v: 'value' })).toEqual({ Meta: { key: 'value' } });
    expect(() => resolveText('@{nope}', {})).toThrow(/@\{nope\}/);
  });

  it('generates the same requests from the same seed, and others from another', () => {
    const t = generated('unknown-name', 'a name', unknownName, (n) => ({ method: 'GET', path: `/v1/x/${n}`, token: MANAGEMENT }));
    const one = casesOf(t, 42, 5).map(describeRequest);
    expect(casesOf(t, 42, 5).map(describeRequest)).toEqual(one);
    expect(casesOf(t, 43, 5).map(describeRequest)).not.toEqual(one);
    expect(casesOf({ ...t, once: true }, 42, 5)).toHaveLength(1);
  });
});
