import { Agent, request } from 'undici';
import { dialectFor, tokenHeaders, type DialectName } from '../config/dialects.ts';
import type { SystemName, Targets } from '../config/schema.ts';
import { detectTarget, DETECT_DEADLINE_MS } from '../config/detect-target.ts';
import { EXIT } from '../cli/exit-codes.ts';
import { identifyProduct, type TargetProduct } from './target-product.ts';

/**
 * Before any verdict, each configured target is identified: that it answers at all, that it answers
 * as the product of its dialect (the evidence `stackproof init` uses, src/config/detect-target.ts),
 * and that it accepts the token. A target that fails any of these ends the run with one line per
 * target saying what was found and what to change, exit 3, and no verdict: dozens of product FAILs
 * from a token typo blame the product for the harness's configuration.
 */

export interface TargetIdentity {
  system: SystemName;
  url: string;
  ok: boolean;
  /** What was found: `HashiCorp Consul 1.8.7 (hashicorp dialect), token accepted (GET /v1/acl/token/self 200)`, or what is wrong. */
  line: string;
  durationMs: number;
  /** Which product and version a hashicorp-dialect secrets or scheduler target is (the mesh's is found by its provisioner). */
  product?: TargetProduct;
}

export class TargetIdentityError extends Error {
  readonly exitCode = EXIT.UNREACHABLE;

  /** What the command did not do for it (`no verdict`; cleanup: `nothing removed`). */
  constructor(
    message: string,
    readonly consequence = 'no verdict',
  ) {
    super(message);
  }
}

const PRODUCT: Record<SystemName, Record<DialectName, string>> = {
  secrets: { hashicorp: 'HashiCorp Vault or OpenBao', spec: 'a secrets service of spec 000' },
  mesh: { hashicorp: 'HashiCorp Consul', spec: 'a mesh agent of spec 001' },
  scheduler: { hashicorp: 'HashiCorp Nomad', spec: 'a scheduler of spec 002' },
};

const envName = (system: SystemName, what: 'URL' | 'TOKEN' | 'DIALECT') => `STACKPROOF_${system.toUpperCase()}_${what}`;

/** An authenticated request that any token of the product may make, and what its answer says about the token. */
interface TokenCheck {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

/**
 * Per dialect, the cheapest request that tells a good token from a refused one without changing
 * anything: Vault's auth/token/lookup-self (its default policy grants it to every token), Consul's
 * and Nomad's acl/token/self (answered "ACL support disabled" when ACLs are off: then no token is
 * refused). The spec dialect shows no such route: a read of a key that does not exist in the
 * key-value engine a fresh install has at secret/ (spec 000 "What the service does" 2: 404 for a good
 * token), an authorize request (spec 001), the client's stats (spec 002).
 */
function tokenCheck(system: SystemName, dialect: DialectName, prefix: string): TokenCheck {
  if (dialect === 'hashicorp') {
    if (system === 'secrets') return { method: 'GET', path: '/v1/auth/token/lookup-self' };
    return { method: 'GET', path: '/v1/acl/token/self' };
  }
  if (system === 'secrets') return { method: 'GET', path: `/v1/secret/${prefix}-token-check` };
  if (system === 'mesh') {
    const service = `${prefix}-token-check`;
    return { method: 'POST', path: '/v1/agent/connect/authorize', body: JSON.stringify({ Target: service, ClientCertURI: `spiffe://stackproof.consul/ns/default/dc/dc1/svc/${service}`, ClientCertSerial: '01:02' }) };
  }
  return { method: 'GET', path: '/v1/client/stats' };
}

/** How a system's token travels in a dialect (the secrets service has a plain header). */
function carrier(system: SystemName, dialect: DialectName) {
  const d = dialectFor(dialect);
  return system === 'secrets' ? { header: d.secrets.tokenHeader } : d[system].token;
}

/** Identifies every configured target at once; the whole takes about two deadlines at most. */
export async function identifyTargets(targets: Targets, prefix: string, deadlineMs = DETECT_DEADLINE_MS): Promise<TargetIdentity[]> {
  const entries = (Object.entries(targets) as [SystemName, NonNullable<Targets[SystemName]>][]).filter(([, t]) => Boolean(t));
  return Promise.all(entries.map(([system, t]) => identifyTarget(system, t.url, t.token, t.dialect, prefix, deadlineMs)));
}

async function identifyTarget(system: SystemName, url: string, token: string, dialect: DialectName, prefix: string, deadlineMs: number): Promise<TargetIdentity> {
  const started = performance.now();
  let product: TargetProduct | undefined;
  const done = (ok: boolean, line: string): TargetIdentity => ({ system, url, ok, line, durationMs: Math.round(performance.now() - started), ...(product ? { product } : {}) });
  const d = await detectTarget(system, url, deadlineMs);
  const wanted = PRODUCT[system][dialect];
  const check = tokenCheck(system, dialect, prefix);
  const askWithToken = () => ask(url, check, tokenHeaders(carrier(system, dialect), token), deadlineMs);
  if (!d.reachable) return done(false, `does not answer (${d.reachability}): is ${envName(system, 'URL')} right, and is it running?`);
  if (d.dialect.value === undefined) {
    const notIt = done(false, `does not answer as ${wanted}: ${d.dialect.how}. Is ${envName(system, 'URL')} the ${system} target's address?`);
    if (d.otherProduct) return notIt;
    // The endpoints the detection reads are ones the rules test too: a product that breaks them (a
    // hanging roots endpoint) is for the rules to judge, not a wrong URL, if it answers the token
    // check of its dialect with a success. Anything else (a static server's 404) is not the product.
    const answer = await askWithToken();
    if ('status' in answer && answer.status >= 200 && answer.status < 300) {
      return done(true, `answered ${check.method} ${check.path} with ${answer.status} as ${wanted} does, but its dialect could not be confirmed (${d.dialect.how}); the rules will judge it`);
    }
    return notIt;
  }
  if (d.dialect.value !== dialect) {
    return done(false, `answers as ${PRODUCT[system][d.dialect.value]} (${d.dialect.how}), but the profile says dialect ${dialect}: set ${envName(system, 'DIALECT')}=${d.dialect.value}`);
  }
  let found = dialect === 'hashicorp' ? `${wanted}${d.version ? ` ${d.version}` : ''}` : 'answers in the spec dialect';
  const answer = await askWithToken();
  if ('error' in answer) return done(false, `${found}; ${check.method} ${check.path} with the token had no answer (${answer.error})`);
  const said = `${check.method} ${check.path} answered ${answer.status}${answer.status >= 400 ? ` ${brief(answer.body)}` : ''}`;
  // A token-self route cannot miss a good token: its 404 ("Supplied token does not exist") is a refusal too.
  const refusedToken = answer.status === 401 || answer.status === 403 || (dialect === 'hashicorp' && check.path.endsWith('/self') && answer.status === 404);
  // Vault and OpenBao share the dialect; which one it is, and its version, decide whose listed deviations apply.
  if (dialect === 'hashicorp' && system !== 'mesh' && !refusedToken && answer.status < 500) {
    product = await identifyProduct(system, url, tokenHeaders(carrier(system, dialect), token), d.version, deadlineMs);
    found = `${product.name}${product.version ? ` ${product.version}` : ''}`;
  }
  if (/ACL support disabled/i.test(answer.body)) return done(true, `${found}, ACLs disabled: no token is checked (${said})`);
  if (refusedToken) {
    return done(false, `${found}; refuses the token (${said}): set ${envName(system, 'TOKEN')} to a token of this ${system} target (tokens are read from the environment)`);
  }
  // A good token on the spec dialect's checks may meet a 404 (the key does not exist): anything but a refusal.
  if (answer.status >= 500) return done(false, `${found}; failed to check the token (${said})`);
  return done(true, `${found}, token accepted (${check.method} ${check.path} answered ${answer.status})`);
}

/** The start of an error body, on one line, without the product's raw HTML. */
function brief(body: string): string {
  const text = body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

async function ask(base: string, check: TokenCheck, headers: Record<string, string>, deadlineMs: number): Promise<{ status: number; body: string } | { error: string }> {
  const dispatcher = new Agent({ connect: { timeout: deadlineMs } });
  try {
    const res = await request(new URL(check.path.slice(1), base.endsWith('/') ? base : `${base}/`), {
      method: check.method,
      headers: { ...headers, ...(check.body ? { 'content-type': 'application/json' } : {}) },
      body: check.body,
      dispatcher,
      signal: AbortSignal.timeout(deadlineMs),
    });
    const body = await res.body.text();
    return { status: res.statusCode, body: body.slice(0, 4096) };
  } catch (err) {
    const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
    return { error: code ?? (err as Error).message };
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}

/** The lines a refused run prints: one per target that is not what the profile says. */
export function identityProblems(identities: TargetIdentity[]): string[] {
  return identities.filter((i) => !i.ok).map((i) => `${i.system} target ${i.url}: ${i.line}`);
}

