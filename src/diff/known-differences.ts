import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRODUCTS, SYSTEMS, type ProductName, type SystemName } from '../config/names.ts';
import { isValidRange, satisfies } from '../expectations/version-range.ts';
import { PACKAGE_ROOT } from '../run/package-root.ts';
import { ASPECTS, type Aspect, type Difference } from './compare.ts';
import { globMatches } from './glob.ts';
import { REQUEST_CLASSES, type RequestClass } from './request-template.ts';

/**
 * The differences between the embedded reference (hashicorp dialect) and a real product that are
 * known and explained, as docs/reference-fidelity.md lists them in its table of known differences.
 * `stackproof diff` reports a difference no row covers as unlisted, and exits 1 for it.
 */
export interface KnownDifference {
  system: SystemName;
  /** `METHOD /path` as the spec writes it; `*` in either part matches anything. */
  endpoint: string;
  class: RequestClass | '*';
  /** `*`: any aspect (then the detail is `*` too). */
  aspect: Aspect | '*';
  /**
   * What the row allows, reference first: `404 → 200` (status, content-type; `*` on either side),
   * path globs separated by commas (fields: every differing path must match one), a glob on the
   * product's normalised text (error, body), or `*`.
   */
  detail: string;
  product: ProductName;
  versions: string;
  why: string;
  /** The line of the document, for messages. */
  line: number;
}

export const FIDELITY_DOC = join(PACKAGE_ROOT, 'docs', 'reference-fidelity.md');

/** The marker comment above the table in docs/reference-fidelity.md. */
export const TABLE_MARKER = '<!-- diff-known-differences: table below -->';

const COLUMNS = ['system', 'endpoint', 'class', 'differs', 'detail', 'product', 'versions', 'why'];

export class KnownDifferencesError extends Error {}

export function loadKnownDifferences(file = FIDELITY_DOC): KnownDifference[] {
  return parseKnownDifferences(readFileSync(file, 'utf8'));
}

/** Splits a markdown table row into its cells (`\|` is a pipe inside a cell; backticks are dropped). */
function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.replace(/\\\|/g, '|').trim().replace(/^`(.*)`$/, '$1'));
}

/** Reads the table under the marker; every row must be well formed, or it throws naming the line. */
export function parseKnownDifferences(doc: string): KnownDifference[] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.trim() === TABLE_MARKER);
  if (start < 0) throw new KnownDifferencesError(`docs/reference-fidelity.md has no ${TABLE_MARKER}`);
  let i = start + 1;
  while (i < lines.length && !lines[i]!.trim().startsWith('|')) i++;
  const header = cells(lines[i] ?? '').map((c) => c.toLowerCase());
  if (header.join(',') !== COLUMNS.join(',')) throw new KnownDifferencesError(`line ${i + 1}: the known-differences table's columns must be ${COLUMNS.join(', ')} (found ${header.join(', ')})`);
  i += 2;
  const rows: KnownDifference[] = [];
  for (; i < lines.length && lines[i]!.trim().startsWith('|'); i++) {
    const c = cells(lines[i]!);
    const at = `docs/reference-fidelity.md line ${i + 1}`;
    if (c.length !== COLUMNS.length) throw new KnownDifferencesError(`${at}: ${c.length} cells, not ${COLUMNS.length}`);
    const [system, endpoint, klass, aspect, detail, product, versions, why] = c as [string, string, string, string, string, string, string, string];
    if (!(SYSTEMS as readonly string[]).includes(system)) throw new KnownDifferencesError(`${at}: system "${system}" is not one of ${SYSTEMS.join(', ')}`);
    if (!/^(\*|[A-Z]+) \/.*$/.test(endpoint)) throw new KnownDifferencesError(`${at}: endpoint "${endpoint}" is not "METHOD /path"`);
    if (klass !== '*' && !(REQUEST_CLASSES as readonly string[]).includes(klass)) throw new KnownDifferencesError(`${at}: class "${klass}" is not one of ${REQUEST_CLASSES.join(', ')} or *`);
    if (aspect !== '*' && !(ASPECTS as readonly string[]).includes(aspect)) throw new KnownDifferencesError(`${at}: "${aspect}" is not one of ${ASPECTS.join(', ')} or *`);
    if (aspect === '*' && detail !== '*') throw new KnownDifferencesError(`${at}: a row for any aspect (*) allows any detail (*)`);
    if ((aspect === 'status' || aspect === 'content-type') && detail !== '*' && !/^\S+ → \S+$/.test(detail)) throw new KnownDifferencesError(`${at}: a ${aspect} detail is "<reference> → <product>" (either may be *), or *`);
    if (!detail) throw new KnownDifferencesError(`${at}: an empty detail (write * for any)`);
    if (!(PRODUCTS as readonly string[]).includes(product)) throw new KnownDifferencesError(`${at}: product "${product}" is not one of ${PRODUCTS.join(', ')}`);
    if (!isValidRange(versions)) throw new KnownDifferencesError(`${at}: versions "${versions}" is not a range (>=1.2.3 <2.0.0, *)`);
    if (why.length < 20) throw new KnownDifferencesError(`${at}: say why, with the upstream source (repository, file, function)`);
    rows.push({ system: system as SystemName, endpoint, class: klass as RequestClass | '*', aspect: aspect as Aspect | '*', detail, product: product as ProductName, versions, why, line: i + 1 });
  }
  return rows;
}


/** Which side of the diff is the reference, and the product on the other side. */
export interface Orientation {
  referenceSide: 'a' | 'b';
  product: { key?: ProductName; version?: string };
}

/**
 * The row that lists this difference, if any. Rows speak of the reference against a product, so a
 * diff of two products has none; the difference's sides are turned so the reference comes first.
 */
export function findListing(rows: KnownDifference[], where: { system: SystemName; endpoint: string; class: RequestClass }, d: Difference, o: Orientation | undefined): KnownDifference | undefined {
  if (!o?.product.key) return undefined;
  const [method, path] = splitEndpoint(where.endpoint);
  return rows.find((r) => {
    if (r.system !== where.system || r.product !== o.product.key || (r.aspect !== '*' && r.aspect !== d.aspect)) return false;
    if (r.class !== '*' && r.class !== where.class) return false;
    const [rm, rp] = splitEndpoint(r.endpoint);
    if (!globMatches(rm, method) || !globMatches(rp, path)) return false;
    // A version that is not known is inside every range: its deviations may all apply.
    if (o.product.version && !satisfies(o.product.version, r.versions)) return false;
    return detailMatches(r.detail, d, o.referenceSide);
  });
}

/** The rows that speak of this product and version on this system: what a diff could meet. */
export function applicableRows(rows: KnownDifference[], system: SystemName, o: Orientation | undefined): KnownDifference[] {
  if (!o?.product.key) return [];
  return rows.filter((r) => r.system === system && r.product === o.product.key && (!o.product.version || satisfies(o.product.version, r.versions)));
}

function splitEndpoint(endpoint: string): [string, string] {
  const i = endpoint.indexOf(' ');
  return [endpoint.slice(0, i), endpoint.slice(i + 1)];
}

function detailMatches(detail: string, d: Difference, referenceSide: 'a' | 'b'): boolean {
  if (detail === '*') return true;
  const turn = <T>(a: T, b: T): [T, T] => (referenceSide === 'a' ? [a, b] : [b, a]);
  switch (d.aspect) {
    case 'status':
    case 'content-type': {
      const [ref, product] = turn(d.a, d.b);
      const [wantRef, wantProduct] = detail.split(' → ') as [string, string];
      return globMatches(wantRef, ref) && globMatches(wantProduct, product);
    }
    case 'error':
    case 'body':
      return globMatches(detail, turn(d.a, d.b)[1]);
    case 'fields': {
      const globs = detail.split(',').map((g) => g.trim()).filter(Boolean);
      const paths = [...d.fields.onlyA, ...d.fields.onlyB, ...d.fields.types.map((t) => t.path)];
      return paths.every((p) => globs.some((g) => globMatches(g, p)));
    }
  }
}
