import fc from 'fast-check';
import { expect } from 'vitest';
import type { TokenGrants } from '../../src/provision/scheduler-fixtures.ts';
import { nodeMetadataSchema } from '../../src/client/schemas/scheduler.ts';
import { runAlone } from '../kit/exclusive.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { ruleTest } from '../kit/rule-test.ts';
import { uniqueName } from '../kit/run-names.ts';
import { SCHEDULER_BOUNDS } from '../kit/bounds/scheduler.ts';
import {
  allows,
  describeOutcomes,
  mayUseNamespaced,
  mayUseNode,
  mergePolicies,
  OTHER_CAPABILITIES,
  mayUseWithQueryNamespace,
  mayReceiveAmong,
  maySubscribe,
  usesUpstreamLanguage,
  type Capability,
  type NamespaceRule,
  type Outcomes,
  type TokenModel,
} from '../models/scheduler-acl.ts';
import { carriesBytesOf, isSuccess } from './file-bytes.ts';
import { eventsIn, framesOf, ident, subscribe, type ActionRef } from './event-reader.ts';
import { unsetKey } from './run-metadata-keys.ts';

// The allocations, jobs, policies and tokens made here are events: like scheduler/fs.suite.ts, not
// beside scheduler/events.suite.ts, whose windows they would push out of the target's buffer.
runAlone('scheduler-events');

// ---------------------------------------------------------------------------------------------
// The world: three namespaces of the run, two sharing a prefix, an allocation with known logs and
// a known file in each. Made once for the file (allocations are the slow part) by the first rule
// that needs it; the run's sweep removes it by the run prefix.
// ---------------------------------------------------------------------------------------------

const FILE = 'app/local/data.txt';
const STDOUT = 'acl access stdout line\n'.repeat(40);

interface World {
  /**
   * Namespace names: `${base}-a`, `${base}-ab` (both under the prefix glob `${base}-a*`, and the
   * first a prefix of the second's name) and `${base}-b`.
   */
  base: string;
  namespaces: [string, string, string];
  alloc: Record<string, string>;
  stdout: Buffer;
}

let world: Promise<World> | undefined;

function worldOf(kit: RuleKit): Promise<World> {
  kit.requireScheduler('acl');
  kit.requireScheduler('management');
  kit.requireScheduler('namespaces');
  world ??= (async () => {
    const fx = kit.schedulerFixtures;
    const base = uniqueName('acl');
    const namespaces: [string, string, string] = [`${base}-a`, `${base}-ab`, `${base}-b`];
    for (const ns of namespaces) await fx.namespace(ns);
    const alloc: Record<string, string> = {};
    await Promise.all(
      namespaces.map(async (ns) => {
        alloc[ns] = (await fx.allocation(uniqueName('acl'), [{ name: 'app', stdout: STDOUT, files: { 'data.txt': 'acl access file\n' } }], 'complete', ns)).id;
      }),
    );
    return { base, namespaces, alloc, stdout: Buffer.from(STDOUT) };
  })();
  // A failed world is made again by the next rule rather than failing every rule the same way.
  world.catch(() => (world = undefined));
  return world;
}

/** The token model as the fixtures' grants: one policy with the blocks, and the node policy. */
function grantsOf(t: TokenModel): TokenGrants {
  return { namespaceBlocks: t.namespaces.map((r) => ({ pattern: r.pattern, ...(r.policy ? { policy: r.policy } : {}), ...(r.capabilities ? { capabilities: r.capabilities } : {}) })), nodeRead: t.node === 'read', nodeWrite: t.node === 'write', nodeDeny: t.node === 'deny' };
}

const describeToken = (t: TokenModel): string =>
  [...t.namespaces.map((r) => `namespace "${r.pattern}" {${r.policy ? ` policy=${r.policy}` : ''}${r.capabilities ? ` capabilities=[${r.capabilities.join(',')}]` : ''} }`), ...(t.node ? [`node { policy=${t.node} }`] : [])].join(' ') || '(nothing)';

/** A token of one policy, or of several (listed on the token in this order). */
type TokenOf = TokenModel | TokenModel[];
const policiesOf = (t: TokenOf): TokenModel[] => (Array.isArray(t) ? t : [t]);
const describeTokenOf = (t: TokenOf): string => (Array.isArray(t) ? t.map((p, i) => `policy ${i + 1} [${describeToken(p)}]`).join(' + ') : describeToken(t));

// ---------------------------------------------------------------------------------------------
// Client endpoints: every decision of a token on every allocation, and with ?namespace=.
// ---------------------------------------------------------------------------------------------

interface ClientEndpoint {
  name: string;
  need: Capability[];
  /**
   * GC collects the allocation the other decisions read: asked only where the model refuses
   * (scheduler.acl.client-endpoints asks the grant, on an allocation of its own).
   */
  destructive?: boolean;
  /** Whether the answer grants; `namespace` is the ?namespace= parameter, when asked with one. */
  granted: (kit: RuleKit, world: World, alloc: string, token: string, namespace?: string) => Promise<{ granted: boolean; shown: string; status?: number }>;
  /** Whether it takes ?namespace= here (allocation stats are asked without a query). */
  queried: boolean;
}

const statusShown = (res: { status: number; body: Buffer }) => `${res.status} ${res.body.toString('utf8').slice(0, 60)}`;

/**
 * The endpoints judged: one per capability of the column. stat and allocation stats by their
 * status (Nomad refuses them 403); logs by what they deliver (the task's stdout, or none of it).
 */
const CLIENT_ENDPOINTS: ClientEndpoint[] = [
  {
    name: 'GET /v1/client/allocation/:alloc_id/stats',
    need: ['read-job'],
    queried: false,
    granted: async (kit, _w, alloc, token) => {
      const res = await kit.scheduler.allocStats(alloc, { token });
      return { granted: isSuccess(res.status), shown: statusShown(res), status: res.status };
    },
  },
  {
    name: 'GET /v1/client/fs/stat/:alloc_id',
    need: ['read-fs'],
    queried: true,
    granted: async (kit, _w, alloc, token, namespace) => {
      const res = await kit.scheduler.fs('stat', alloc, { path: FILE, ...(namespace ? { namespace } : {}) }, { token });
      return { granted: isSuccess(res.status), shown: statusShown(res), status: res.status };
    },
  },
  {
    name: 'GET /v1/client/fs/logs/:alloc_id (plain)',
    need: ['read-logs', 'read-fs'],
    queried: true,
    granted: async (kit, w, alloc, token, namespace) => {
      const res = await kit.scheduler.fs('logs', alloc, { task: 'app', type: 'stdout', origin: 'start', offset: 0, plain: true, ...(namespace ? { namespace } : {}) }, { token });
      // Accepted, the logs are the task's stdout; refused, none of its bytes, whatever the status.
      if (isSuccess(res.status) && res.body.equals(w.stdout)) return { granted: true, shown: statusShown(res) };
      return { granted: carriesBytesOf(res.body, w.stdout), shown: statusShown(res) };
    },
  },
  {
    name: 'GET /v1/client/allocation/:alloc_id/gc',
    need: ['submit-job'],
    queried: false,
    destructive: true,
    granted: async (kit, _w, alloc, token) => {
      const res = await kit.scheduler.gcAlloc(alloc, { token });
      return { granted: isSuccess(res.status), shown: statusShown(res), status: res.status };
    },
  },
];

/** The node's endpoints (spec 002: node:read, node:write), asked with every token beside the namespaced ones. */
const NODE_ENDPOINTS: { name: string; need: 'read' | 'write'; status: (kit: RuleKit, token: string) => Promise<{ status: number; body: Buffer }> }[] = [
  { name: 'GET /v1/client/metadata', need: 'read', status: (kit, token) => kit.scheduler.readMetadata({}, { token }) },
  { name: 'GET /v1/client/stats', need: 'read', status: (kit, token) => kit.scheduler.stats({}, { token }) },
  // Unsets the run's own key: granted or not, nothing of the node's metadata changes.
  { name: 'POST /v1/client/metadata', need: 'write', status: (kit, token) => kit.scheduler.updateMetadata({ [unsetKey(kit)]: null }, {}, { token }) },
];

/** One decision: a token, an endpoint, the allocation's namespace, and ?namespace= if given. */
interface Decision {
  token: string;
  endpoint: string;
  alloc: string;
  query?: string;
  want: Outcomes;
  got: boolean;
  shown: string;
  /** Under the strict profile, a refusal judged by its status must be Nomad's 403. */
  wrongStatus?: boolean;
}

const describeDecision = (d: Decision) => `${d.endpoint} ${d.alloc === 'the node' ? 'on the node' : `on the allocation in ${d.alloc}`}${d.query ? ` with ?namespace=${d.query}` : ''}, token ${d.token}: the model says ${describeOutcomes(d.want)}, the target ${d.got ? 'granted' : 'refused'} (${d.shown})${d.wrongStatus ? ', not with 403 as Nomad refuses' : ''}`;

/** The decisions that differ from `d` in exactly one attribute (token, endpoint, namespace, query). */
function neighboursOf(d: Decision, all: Decision[]): Decision[] {
  const differing = (e: Decision) => [e.token !== d.token, e.endpoint !== d.endpoint, e.alloc !== d.alloc, e.query !== d.query].filter(Boolean).length;
  return all.filter((e) => differing(e) === 1);
}

/**
 * Asks every client decision of the tokens (made through the fixtures) and checks each against the
 * model. A failure names the decision, what the model allowed, and its neighbours (the decisions
 * that differ in one attribute) with their answers, the other side of the boundary.
 */
async function judgeClientDecisions(kit: RuleKit, w: World, tokens: TokenOf[], options: { strictUpstream: boolean }): Promise<void> {
  const made = await Promise.all(
    tokens.map(async (t) => {
      const name = uniqueName('aclt');
      const made = Array.isArray(t) ? await kit.schedulerFixtures.tokenWithPolicies(name, t.map(grantsOf)) : await kit.schedulerFixtures.token(name, grantsOf(t));
      return { model: mergePolicies(policiesOf(t)), secret: made.secret, who: describeTokenOf(t) };
    }),
  );
  const decisions: Decision[] = [];
  for (const t of made) {
    for (const e of NODE_ENDPOINTS) {
      const want = mayUseNode(t.model, e.need);
      const res = await e.status(kit, t.secret);
      decisions.push({ token: t.who, endpoint: e.name, alloc: 'the node', want, got: isSuccess(res.status), shown: statusShown(res) });
    }
    for (const e of CLIENT_ENDPOINTS) {
      for (const ns of w.namespaces) {
        const asked: (string | undefined)[] = [undefined, ...(e.queried ? w.namespaces.filter((q) => q !== ns) : [])];
        for (const query of asked) {
          const want = query ? mayUseWithQueryNamespace(t.model, ns, query, e.need, options.strictUpstream) : mayUseNamespaced(t.model, ns, e.need, options.strictUpstream);
          if (e.destructive && want.has(true)) continue;
          const { granted, shown, status } = await e.granted(kit, w, w.alloc[ns]!, t.secret, query);
          // Nomad refuses with 403 Permission denied (client/fs_endpoint.go, client/alloc_endpoint.go: structs.ErrPermissionDenied).
          const wrongStatus = options.strictUpstream && !granted && status !== undefined && status !== 403;
          decisions.push({ token: t.who, endpoint: e.name, alloc: ns, query, want, got: granted, shown, wrongStatus });
        }
      }
    }
  }
  const wrong = decisions.filter((d) => !allows(d.want, d.got) || d.wrongStatus);
  if (!wrong.length) return;
  const first = wrong[0]!;
  const beside = neighboursOf(first, decisions)
    .filter((n) => n.want.size === 1)
    .slice(0, 4)
    .map((n) => `  - ${describeDecision(n)}`);
  expect.fail(`${wrong.length} of ${decisions.length} decisions differ from the model; the first: ${describeDecision(first)}\n  its neighbours (one attribute changed):\n${beside.join('\n')}`);
}

const CAPS: Capability[] = ['read-job', 'read-fs', 'read-logs', 'submit-job'];

/** Exact-name blocks with explicit capabilities: the decisions spec 002 states. */
const exactToken = (w: World): fc.Arbitrary<TokenModel> =>
  fc.record({ namespaces: fc.array(fc.record({ pattern: fc.constantFrom(...w.namespaces), capabilities: fc.subarray(CAPS, { minLength: 1 }) }), { minLength: 1, maxLength: 2 }) });

/** A token and its neighbour: the same blocks with one changed in one attribute (its namespace or one capability). */
function withNeighbour(token: fc.Arbitrary<TokenModel>, patterns: string[]): fc.Arbitrary<[TokenModel, TokenModel]> {
  return token.chain((t) =>
    fc.record({ which: fc.nat(t.namespaces.length - 1), pattern: fc.constantFrom(...patterns), cap: fc.constantFrom(...CAPS), change: fc.constantFrom('namespace', 'capability') }).map(({ which, pattern, cap, change }): [TokenModel, TokenModel] => {
      const blocks = t.namespaces.map((r, i): NamespaceRule => {
        if (i !== which) return r;
        if (change === 'namespace') return { ...r, pattern: pattern === r.pattern ? patterns.find((p) => p !== r.pattern)! : pattern };
        const caps = r.capabilities ?? [];
        return { ...r, capabilities: caps.includes(cap) && caps.length > 1 ? caps.filter((c) => c !== cap) : [...caps.filter((c) => c !== cap), cap] };
      });
      return [t, { ...t, namespaces: blocks }];
    }),
  );
}

ruleTest('scheduler.acl.namespace-neighbours', async (kit) => {
  const w = await worldOf(kit);
  const [a1, a2, b] = w.namespaces;
  await kit.property(
    withNeighbour(exactToken(w), w.namespaces),
    async (pair) => {
      expect(pair.some(usesUpstreamLanguage), 'the generated tokens use exact names and capabilities only').toBe(false);
      await judgeClientDecisions(kit, w, pair, { strictUpstream: false });
    },
    {
      numRuns: Math.min(kit.ctx.runs, 4),
      // read-fs in one namespace beside read-job there; read-logs in a neighbour of the same prefix.
      examples: [
        [{ namespaces: [{ pattern: a1, capabilities: ['read-fs'] }] }, { namespaces: [{ pattern: a1, capabilities: ['read-job'] }] }],
        [{ namespaces: [{ pattern: a2, capabilities: ['read-logs'] }] }, { namespaces: [{ pattern: b, capabilities: ['read-logs'] }] }],
      ],
    },
  );
});

ruleTest('scheduler.upstream.acl-namespace-patterns', async (kit) => {
  const w = await worldOf(kit);
  const [a1, a2, b] = w.namespaces;
  const prefix = `${w.base}-a*`;
  const patterns = [...w.namespaces, prefix, `${w.base}-*`, '*', `*-${b.slice(-1)}`];
  const block = fc.record(
    {
      pattern: fc.constantFrom(...patterns),
      policy: fc.option(fc.constantFrom<'read' | 'write' | 'deny'>('read', 'write', 'deny'), { nil: undefined }),
      capabilities: fc.option(fc.subarray<Capability | 'deny'>([...CAPS, 'deny'], { minLength: 1 }), { nil: undefined }),
    },
    { requiredKeys: ['pattern'] },
  ).filter((r) => r.policy !== undefined || r.capabilities !== undefined);
  const token = fc.record({ namespaces: fc.array(block, { minLength: 1, maxLength: 3 }) });
  await kit.property(
    withNeighbour(token, patterns),
    (pair) => judgeClientDecisions(kit, w, pair, { strictUpstream: true }),
    {
      numRuns: Math.min(kit.ctx.runs, 4),
      examples: [
        // An exact block wins over '*' though it grants less; its neighbour drops the exact block's namespace to the prefix's sibling.
        [{ namespaces: [{ pattern: '*', policy: 'write' }, { pattern: a1, capabilities: ['read-job'] }] }, { namespaces: [{ pattern: '*', policy: 'write' }, { pattern: b, capabilities: ['read-job'] }] }],
        // An exact block wins over a glob as close as a glob can be (the prefix matching <base>-a with its star empty).
        [{ namespaces: [{ pattern: prefix, capabilities: ['read-fs'] }, { pattern: a1, capabilities: ['read-job'] }] }, { namespaces: [{ pattern: prefix, capabilities: ['read-fs'] }, { pattern: a2, capabilities: ['read-job'] }] }],
        // The closer glob (the prefix) wins over '*'; a deny under the prefix, a write beside it.
        [{ namespaces: [{ pattern: prefix, capabilities: ['read-fs'] }, { pattern: '*', capabilities: ['read-job'] }] }, { namespaces: [{ pattern: prefix, capabilities: ['deny'] }, { pattern: '*', policy: 'write' }] }],
        // `read` reaches jobs, not files nor logs; `write` reaches them.
        [{ namespaces: [{ pattern: a1, policy: 'read' }] }, { namespaces: [{ pattern: a1, policy: 'write' }] }],
        // Closeness counts literal characters, neither the blocks' order nor the names' order: for
        // <base>-ab the second block, '*<a2 without its first character>', is closer than '<base>-*'
        // though its name is smaller. Its neighbour names '*<a1 without its first character>',
        // exactly as close to <base>-a as '<base>-*': a tie, which Nomad gives to the greatest name.
        [
          { namespaces: [{ pattern: `${w.base}-*`, capabilities: ['read-fs'] }, { pattern: `*${a2.slice(1)}`, capabilities: ['read-job'] }] },
          { namespaces: [{ pattern: `${w.base}-*`, capabilities: ['read-fs'] }, { pattern: `*${a1.slice(1)}`, capabilities: ['read-job'] }] },
        ],
        // The same tie with the smaller name first; beside it a glob with one literal character
        // fewer and one star more ('*<base without its first character>-*'), farther than '<base>-*'.
        [
          { namespaces: [{ pattern: `*${a1.slice(1)}`, capabilities: ['read-job'] }, { pattern: `${w.base}-*`, capabilities: ['read-logs'] }] },
          { namespaces: [{ pattern: `*${w.base.slice(1)}-*`, capabilities: ['read-job'] }, { pattern: `${w.base}-*`, capabilities: ['read-logs'] }] },
        ],
      ],
    },
  );
  // Every other capability of the allocation's namespace, and each shorthand word, on every endpoint
  // (allocation GC, which needs submit-job, asked wherever the model refuses): one world, one batch.
  await judgeClientDecisions(kit, w, everyCapabilityToken(b), { strictUpstream: true });
  // Several policies on one token that speak about the same namespace or node block, in both orders.
  await kit.property(
    policiesInBothOrders(w, patterns),
    (pair) => judgeClientDecisions(kit, w, pair, { strictUpstream: true }),
    {
      numRuns: Math.min(kit.ctx.runs, 3),
      examples: [
        // A namespace deny beside a write of the same namespace in another policy; a node deny beside a node write.
        [[{ namespaces: [{ pattern: a1, policy: 'deny' }], node: 'deny' }, { namespaces: [{ pattern: a1, policy: 'write' }], node: 'write' }], [{ namespaces: [{ pattern: a1, policy: 'write' }], node: 'write' }, { namespaces: [{ pattern: a1, policy: 'deny' }], node: 'deny' }]],
        // Capabilities of the same namespace in two policies add up; a deny capability under a glob beside an exact write; node read with node write.
        [[{ namespaces: [{ pattern: a1, capabilities: ['read-job'] }], node: 'read' }, { namespaces: [{ pattern: a1, capabilities: ['read-fs'] }, { pattern: prefix, capabilities: ['deny'] }], node: 'write' }], [{ namespaces: [{ pattern: a1, capabilities: ['read-fs'] }, { pattern: prefix, capabilities: ['deny'] }], node: 'write' }, { namespaces: [{ pattern: a1, capabilities: ['read-job'] }], node: 'read' }]],
        // The same glob in two policies: read there, deny there; and a read node beside a node deny.
        [[{ namespaces: [{ pattern: `${w.base}-*`, policy: 'read' }], node: 'read' }, { namespaces: [{ pattern: `${w.base}-*`, capabilities: ['deny'] }, { pattern: a2, capabilities: ['read-logs'] }], node: 'deny' }], [{ namespaces: [{ pattern: `${w.base}-*`, capabilities: ['deny'] }, { pattern: a2, capabilities: ['read-logs'] }], node: 'deny' }, { namespaces: [{ pattern: `${w.base}-*`, policy: 'read' }], node: 'read' }]],
      ],
    },
  );
  // The event stream judges the same merged policies (spec 002, Authentication 2: Job needs
  // namespace:read-job): topic=Job in <base>-a with a token of several policies, in both orders.
  const deny: TokenModel = { namespaces: [{ pattern: a1, policy: 'deny' }] };
  const write: TokenModel = { namespaces: [{ pattern: a1, policy: 'write' }] };
  const globRead: TokenModel = { namespaces: [{ pattern: `${w.base}-*`, policy: 'read' }] };
  const exactDeny: TokenModel = { namespaces: [{ pattern: a1, capabilities: ['deny'] }] };
  const split: TokenModel[] = [{ namespaces: [{ pattern: a1, capabilities: ['read-fs'] }] }, { namespaces: [{ pattern: a1, capabilities: ['read-job'] }] }];
  await judgeJobStream(kit, a1, [[deny, write], [write, deny], [globRead, exactDeny], [exactDeny, globRead], split, [...split].reverse()]);
});

/**
 * Registers a job in `namespace` and subscribes to its Job event with each token of several
 * policies at once (a refused subscription may stay open and silent until the quiet bound, as on
 * Nomad 2.0.5): each must receive it exactly as the model allows.
 */
async function judgeJobStream(kit: RuleKit, namespace: string, tokens: TokenModel[][]): Promise<void> {
  const fx = kit.schedulerFixtures;
  const jobId = uniqueName('aclp');
  const made = await Promise.all(tokens.map(async (ps) => ({ ps, secret: (await fx.tokenWithPolicies(uniqueName('aclp'), ps.map(grantsOf))).secret })));
  const { index } = await fx.registerJob(jobId, namespace);
  const action: ActionRef = { index, topic: 'Job', key: jobId };
  const answers = await Promise.all(
    made.map(async ({ ps, secret }) => {
      const res = await subscribe(kit, { index: String(index), namespace, topic: 'Job' }, index, { token: secret, event: action });
      const received = res.status >= 400 ? [] : eventsIn(framesOf(res), index, index);
      return { ps, got: received.some((e) => e.Index === index && e.Topic === 'Job' && e.Key === jobId), status: res.status };
    }),
  );
  for (const { ps, got, status } of answers) {
    const want = maySubscribe(mergePolicies(ps), 'Job', namespace);
    if (!allows(want, got)) expect.fail(`topic=Job namespace=${namespace} with a token of ${describeTokenOf(ps)}: the model says ${describeOutcomes(want)}; the target ${got ? `delivered the Job event of index ${index}` : `did not deliver the Job event of index ${index} (status ${status})`}`);
  }
}

/**
 * A token's several policies that speak about the same namespace or node: asked in both orders
 * (the pair differs only in the order the token lists them). Nomad compiles every policy into one
 * ACL (acl/acl.go NewACL): blocks of the same pattern merge, a deny wins whatever its place, the
 * node policy is maxPrivilege (deny over write over read).
 */
function policiesInBothOrders(w: World, patterns: string[]): fc.Arbitrary<[TokenModel[], TokenModel[]]> {
  const [a1] = w.namespaces;
  const block = fc.record(
    {
      // The shared namespace most of the time, so that two policies speak about the same block.
      pattern: fc.oneof({ weight: 2, arbitrary: fc.constant(a1) }, { weight: 1, arbitrary: fc.constantFrom(...patterns) }),
      policy: fc.option(fc.constantFrom<'read' | 'write' | 'deny'>('read', 'write', 'deny'), { nil: undefined }),
      capabilities: fc.option(fc.subarray<Capability | 'deny'>([...CAPS, 'deny'], { minLength: 1, maxLength: 2 }), { nil: undefined }),
    },
    { requiredKeys: ['pattern'] },
  ).filter((r) => r.policy !== undefined || r.capabilities !== undefined);
  const policy = fc.record({ namespaces: fc.array(block, { minLength: 0, maxLength: 2 }), node: fc.constantFrom<TokenModel['node']>(undefined, 'deny', 'read', 'write') }).filter((p) => p.namespaces.length > 0 || p.node !== undefined);
  return fc.array(policy, { minLength: 2, maxLength: 3 }).map((ps): [TokenModel[], TokenModel[]] => [ps, [...ps].reverse()]);
}

/**
 * One token per namespace capability but the endpoint's (every one of Nomad's that spec 002 does
 * not name, and the spec's other ones) and per shorthand word, in the allocation's namespace: each
 * endpoint, allocation GC among them, must answer as the model says.
 */
function everyCapabilityToken(namespace: string): TokenModel[] {
  return [
    ...[...CAPS, ...OTHER_CAPABILITIES].map((c): TokenModel => ({ namespaces: [{ pattern: namespace, capabilities: [c] }] })),
    ...(['read', 'write', 'deny'] as const).map((policy): TokenModel => ({ namespaces: [{ pattern: namespace, policy }] })),
  ];
}

// ---------------------------------------------------------------------------------------------
// The event stream: a token's namespace against the events' namespace, topic '*', and the same
// token again after its policy changed (fc.commands).
// ---------------------------------------------------------------------------------------------

interface EventWorld {
  /** The Job event of a job registered in each of two namespaces, oldest first. */
  jobs: { namespace: string; action: ActionRef }[];
  from: number;
  through: number;
}

type Real = { kit: RuleKit; ew: EventWorld; name: string; secret: string };
type ModelState = { token: TokenModel };

/** Replaces the token's policy (same name, new rules): the next subscription must follow it. */
class SetPolicy implements fc.AsyncCommand<ModelState, Real> {
  constructor(readonly token: TokenModel) {}
  check = () => true;
  async run(m: ModelState, r: Real): Promise<void> {
    await r.kit.schedulerFixtures.policy(r.name, grantsOf(this.token));
    m.token = this.token;
  }
  toString = () => `policy := ${describeToken(this.token)}`;
}

/** Subscribes with the token and checks what arrives against the model's current token. */
/** The four topics spec 002 gives namespace:read-job, asked in one subscription: their Job event must arrive. */
const READ_JOB_TOPICS = ['Job', 'Allocation', 'Deployment', 'Evaluation'];

class Subscribe implements fc.AsyncCommand<ModelState, Real> {
  constructor(
    readonly topic: 'Job' | 'Evaluation' | '*' | 'read-job topics',
    readonly job: number,
  ) {}
  check = () => true;
  async run(m: ModelState, r: Real): Promise<void> {
    const { namespace, action } = r.ew.jobs[this.job]!;
    const want = this.topic === 'read-job topics' ? mayReceiveAmong(m.token, 'Job', READ_JOB_TOPICS, namespace) : maySubscribe(m.token, this.topic, namespace);
    const topic = this.topic === '*' ? {} : { topic: this.topic === 'read-job topics' ? READ_JOB_TOPICS : this.topic };
    const query = { index: String(r.ew.from), namespace, ...topic };
    const event: ActionRef = { ...action, topic: this.topic === 'Evaluation' ? 'Evaluation' : 'Job' };
    const res = await subscribe(r.kit, query, r.ew.through, { token: r.secret, event });
    const received = res.status >= 400 ? [] : eventsIn(framesOf(res), r.ew.from, r.ew.through);
    const got = received.some((e) => e.Index === action.index && e.Topic === event.topic && (e.Key === action.key || (e.FilterKeys ?? []).includes(action.key)));
    const what = `topic=${this.topic} namespace=${namespace} with a token ${describeToken(m.token)}: the model says ${describeOutcomes(want)}`;
    if (!allows(want, got)) expect.fail(`${what}; the target ${got ? `delivered the ${event.topic} event of index ${action.index}` : `did not deliver the ${event.topic} event of index ${action.index} (status ${res.status}, ${received.length} events of the window: ${received.slice(0, 3).map(ident).join('; ')})`}`);
    if (!want.has(true)) expect(received.map(ident), `${what}: no event of the window at all`).toEqual([]);
  }
  toString = () => `subscribe(topic=${this.topic}, job ${this.job})`;
}

ruleTest('scheduler.events.acl-neighbours', async (kit) => {
  const w = await worldOf(kit);
  const fx = kit.schedulerFixtures;
  const [a1, , b] = w.namespaces;
  // One Job (and Evaluation) event in each of two namespaces; they stay in the buffer for the rule's few subscriptions.
  const jobs = [a1, b].map((namespace) => ({ namespace, id: uniqueName('acle') }));
  const events: EventWorld['jobs'] = [];
  for (const j of jobs) events.push({ namespace: j.namespace, action: { index: (await fx.registerJob(j.id, j.namespace)).index, topic: 'Job', key: j.id } });
  const ew: EventWorld = { jobs: events, from: events[0]!.action.index, through: events[1]!.action.index };
  const name = uniqueName('acle');
  // Exact-name blocks with read-job, and nothing else: the decisions spec 002 states.
  const grants = fc.record({ namespaces: fc.subarray([a1, b]).map((nss) => nss.map((pattern): NamespaceRule => ({ pattern, capabilities: ['read-job'] }))), node: fc.constantFrom<TokenModel['node']>(undefined, 'read') });
  const commands = fc.commands([grants.map((t) => new SetPolicy(t)), fc.record({ topic: fc.constantFrom<'Job' | 'Evaluation' | '*' | 'read-job topics'>('Job', 'Evaluation', '*', 'read-job topics'), job: fc.nat(1) }).map(({ topic, job }) => new Subscribe(topic, job))], { maxCommands: 5 });
  const start: TokenModel = { namespaces: [{ pattern: a1, capabilities: ['read-job'] }] };
  const secret = (await fx.token(name, grantsOf(start))).secret;
  await kit.property(
    commands,
    async (cmds) => {
      // Every case starts from the same policy: read-job in the first namespace only.
      await fx.policy(name, grantsOf(start));
      await fc.asyncModelRun(() => ({ model: { token: start }, real: { kit, ew, name, secret } }), cmds);
    },
    {
      numRuns: Math.min(kit.ctx.runs, 2),
      // Granted in one namespace, refused in the other (Job and Evaluation); with node:read added,
      // '*' stays refused and the four read-job topics together are granted; then read-job moves to the other namespace.
      examples: [
        [
          new Subscribe('Job', 0),
          new Subscribe('Job', 1),
          new Subscribe('Evaluation', 1),
          new SetPolicy({ namespaces: [{ pattern: a1, capabilities: ['read-job'] }], node: 'read' }),
          new Subscribe('*', 0),
          new Subscribe('read-job topics', 0),
          new SetPolicy({ namespaces: [{ pattern: b, capabilities: ['read-job'] }] }),
          new Subscribe('Job', 0),
          new Subscribe('Evaluation', 1),
        ] as unknown as Iterable<fc.AsyncCommand<ModelState, Real>>,
      ],
    },
  );
  // A refused subscription may stay open and silent until the quiet bound (Nomad 2.0.5 does): up to 17 of them, 5 s each.
}, { timeoutMs: SCHEDULER_BOUNDS.aclSequence.ms });

// ---------------------------------------------------------------------------------------------
// Node metadata: who may write it, which node a write reaches, and a static key set to null.
// ---------------------------------------------------------------------------------------------

/** The static key an operator lets a run unset: on a real node that leaves a tombstone for good, so only a key made for it. */
const UNSETTABLE_STATIC = /^stackproof[._-]/;

ruleTest('scheduler.metadata.write-neighbours', async (kit) => {
  kit.requireScheduler('acl');
  kit.requireScheduler('management');
  const fx = kit.schedulerFixtures;
  const s = kit.scheduler;
  const key = unsetKey(kit);
  const nodeId = kit.ctx.provisioned?.scheduler?.nodeId ?? kit.ctx.targets.scheduler?.nodeId ?? fx.nodeId;
  const read = async () => (await s.readMetadata({ node_id: nodeId })).parse(nodeMetadataSchema);
  try {
    // A pair of tokens differing in the node policy: read, then write; and a namespace token with every capability.
    const holders: TokenModel[] = [{ namespaces: [], node: 'read' }, { namespaces: [], node: 'write' }, { namespaces: [{ pattern: 'default', capabilities: ['read-job', 'read-fs', 'read-logs', 'submit-job'] }] }];
    for (const [i, t] of holders.entries()) {
      const secret = (await fx.token(uniqueName('aclm'), grantsOf(t))).secret;
      const value = `by-token-${i}`;
      const res = await s.updateMetadata({ [key]: value }, { node_id: nodeId }, { token: secret });
      const want = mayUseNode(t, 'write');
      const after = await read();
      const granted = isSuccess(res.status);
      expect(allows(want, granted), `POST /v1/client/metadata with a token ${describeToken(t)}: the model says ${describeOutcomes(want)} (got ${res.status})`).toBe(true);
      expect(after.Dynamic[key] === value, `POST with a token ${describeToken(t)} ${granted ? 'was accepted and sets' : 'was refused and sets nothing:'} ${key}`).toBe(granted);
      await s.updateMetadata({ [key]: null }, { node_id: nodeId });
    }
    // The same write, once for the node and once for another node's ID: the other never reaches this node.
    const before = await read();
    const other = '0e6c7f7a-1111-4222-8333-944445555666';
    const elsewhere = await s.updateMetadata({ [key]: 'another-node' }, { node_id: other });
    expect(isSuccess(elsewhere.status), `POST /v1/client/metadata?node_id=<no such node> is refused (got ${elsewhere.status})`).toBe(false);
    expect(await read(), "a write for another node changes nothing of this node's metadata").toEqual(before);
    const here = await s.updateMetadata({ [key]: 'this-node' }, { node_id: nodeId });
    expect(isSuccess(here.status) && (await read()).Dynamic[key] === 'this-node', `the same write with this node's ID sets ${key} (got ${here.status})`).toBe(true);
    // A static key set to null: only one the operator made for it (see UNSETTABLE_STATIC).
    await s.updateMetadata({ [key]: null }, { node_id: nodeId });
    const beforeUnset = await read();
    const staticKey = Object.keys(before.Static).find((k) => UNSETTABLE_STATIC.test(k));
    if (!staticKey) {
      kit.note('no static key named stackproof.* on the node: a static key set to null is not tried (on Nomad it leaves a tombstone that hides the key for good)');
      return;
    }
    const unset = await s.updateMetadata({ [staticKey]: null }, { node_id: nodeId });
    const view = await read();
    expect(view.Static, `Static does not change when the static key ${staticKey} is set to null through the API (answer ${unset.status})`).toEqual(beforeUnset.Static);
    expect(view.Dynamic[staticKey] ?? null, `${staticKey} set to null is null or absent in Dynamic`).toBeNull();
    expect([undefined, before.Static[staticKey]], `Meta holds ${staticKey} unset or with its static value, never another`).toContain(view.Meta[staticKey]);
    const others = (m: Record<string, string | null>) => Object.fromEntries(Object.entries(m).filter(([k]) => k !== staticKey));
    expect(others(view.Meta), `only ${staticKey} may change in Meta`).toEqual(others(beforeUnset.Meta));
  } finally {
    await s.updateMetadata({ [key]: null }, { node_id: nodeId });
  }
});
