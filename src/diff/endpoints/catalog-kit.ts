import fc from 'fast-check';
import type { RequestClass, RequestTemplate, SymbolicRequest, TokenChoice } from '../request-template.ts';

/** The building blocks the endpoint catalogs share: tokens, generated values, one-line templates. */
export const MANAGEMENT: TokenChoice = { kind: 'management' };
export const NO_TOKEN: TokenChoice = { kind: 'none' };
export const WRONG_TOKEN: TokenChoice = { kind: 'wrong' };
export const fixtureToken = (symbol: string): TokenChoice => ({ kind: 'fixture', symbol });

/** A name that nothing on either target has: lower-case letters and digits. */
export const unknownName = fc.stringMatching(/^[a-z][a-z0-9]{5,11}$/);
/** A well-formed ID that no target issued. */
export const unknownUuid = fc.uuid({ version: 4 });
/** A field name no endpoint of these specs takes. */
export const unknownField = fc.stringMatching(/^[A-Z][a-z]{3,8}[A-Z][a-z]{2,6}$/);
/** A JSON value of a type other than a string. */
export const notAString = fc.oneof(fc.integer({ min: -5, max: 100_000 }), fc.boolean(), fc.constant([] as unknown[]), fc.constant({}), fc.array(fc.integer(), { minLength: 1, maxLength: 2 }));
/** A JSON value of a type other than an object. */
export const notAnObject = fc.oneof(fc.integer(), fc.boolean(), fc.string({ maxLength: 8 }), fc.constant([] as unknown[]));
/** A query value that is not an integer. */
export const notAnInteger = fc.constantFrom('abc', '1.5', '0x10', 'ten', '1e3x');

/** A template whose request does not vary. */
export function fixed(klass: RequestClass, what: string, req: SymbolicRequest, extra: Partial<RequestTemplate<undefined>> = {}): RequestTemplate<undefined> {
  return { class: klass, what, build: () => req, ...extra };
}

/** A template whose request is built from a generated value. */
export function generated<T>(klass: RequestClass, what: string, gen: fc.Arbitrary<T>, build: (v: T) => SymbolicRequest, extra: Partial<RequestTemplate<T>> = {}): RequestTemplate<T> {
  return { class: klass, what, gen, build, ...extra };
}

/** The token classes every authenticated endpoint gets: none, one never issued, and a fixture token lacking the permission. */
export function tokenClasses(req: Omit<SymbolicRequest, 'token'>, forbidden?: { symbol: string; what: string }): RequestTemplate<undefined>[] {
  return [
    fixed('no-token', 'no token', { ...req, token: NO_TOKEN }),
    fixed('wrong-token', 'a token the target never issued', { ...req, token: WRONG_TOKEN }),
    ...(forbidden ? [fixed('forbidden', forbidden.what, { ...req, token: fixtureToken(forbidden.symbol) })] : []),
  ];
}
