import type { WaitBound } from './bound.ts';

/**
 * The mesh rules' waits. Spec 001 gives a blocking query's `wait` and says it returns when the data
 * changes or the wait elapses; it names no time for a wake-up. So a rule that judges a wake-up asks
 * for a wait far longer than a wake-up takes and judges only "before the wait elapsed"; a rule that
 * judges the return after the wait allows a margin for a busy host; every request deadline lies
 * beyond what the rule judges, so a product's lateness is judged by the rule, not cut by the client.
 */
export const MESH_BOUNDS = {
  afterWait: {
    ms: 10_000,
    waitsFor: 'the answer of a blocking query whose wait elapsed',
    why: "Consul adds up to wait/16 of jitter (agent/consul/rpc.go, lib.RandomStagger(queryTimeout / structs.JitterFraction)); the rest is a busy host's room. Running out is the FAIL of mesh.leaf.blocking-timeout, whose spec sentence gives the time",
  },
  rootsWake: {
    ms: 30_000,
    waitsFor: 'a blocking roots query to wake on a CA rotation',
    why: 'the roots change the moment the rotation is answered, so the wake-up takes milliseconds; the rule asks for a 30 s wait and judges that the answer came before it elapsed (a query that sleeps through the change returns only after it)',
  },
  leafWake: {
    ms: 60_000,
    waitsFor: 'a blocking leaf query to wake on a CA rotation',
    why: 'Consul spreads the re-issues after a root change over a random 0-30 s (agent/leafcert/generate.go caChangeJitterWindow); the wait outlasts that spread with 30 s for a busy host, and the rule judges only that the new leaf came before it elapsed',
  },
  expiryWake: {
    ms: 30_000,
    waitsFor: "a blocking leaf query to wake before the held leaf's end",
    why: "added to the leaf's remaining validity to make the query's wait: the new leaf is due by that end, and the wait elapsing first is the rule's FAIL",
  },
  olderIndexWait: {
    ms: 15_000,
    waitsFor: 'a blocking query whose index is already behind the current one, which has nothing to wait for',
    why: 'the wait such a query asks for: a product that answers at once takes milliseconds, one that blocks anyway returns only after the wait, which the rule judges as elapsed or not',
  },
  aclChange: {
    ms: 35_000,
    waitsFor: "a policy change or a token's deletion to reach the agent's access decisions",
    why: "Consul's servers resolve a token from their own state at once, its client agents from a cache kept for acl.token_ttl and acl.policy_ttl (30 s by default: agent/config/default.go, agent/consul/acl.go ACLResolver); a decision still made by the old policy after that is the FAIL of mesh.acl.policy-change, not a slow host (the reference and a Consul server apply a change at once, so a passing run never waits)",
  },
  requestBeyond: {
    ms: 20_000,
    waitsFor: "a blocking query's answer, beyond what the rule judges",
    why: "the client's deadline for a blocking request is its wait plus this, so that lateness is judged by the rule's own bound (a FAIL where the spec gives the time) and never cut short as a transport error",
  },
} satisfies Record<string, WaitBound>;

/** Short times the mesh rules ask for or allow for rounding: not bounds on the product. */
export const MESH_MARGINS = {
  timedOutWait: {
    ms: 1_000,
    waitsFor: 'a blocking leaf query with nothing to change to see out its wait',
    why: "the wait the rules ask for when they need a blocking query to end by its wait (mesh.leaf.blocking-timeout, the ACL rules' blocking refusal): a second is as good as any, and keeps the rules short",
  },
  clockSecond: {
    ms: 1_000,
    waitsFor: "the target's clock (its Date header and ValidBefore are whole seconds)",
    why: 'a second of rounding on each side of a comparison with the target\'s clock, so that no rule decides at the edge of a second',
  },
  headStart: {
    ms: 300,
    waitsFor: 'a blocking query to reach the product before the change it waits for is made',
    why: 'not a verdict: a query that arrives after the change is answered at once with the new data, which the rule accepts',
  },
} satisfies Record<string, WaitBound>;
