import { describe, expect, it } from 'vitest';
import { TokenStore } from '../src/reference/secrets/token-store.ts';
import { revokeNamespaceTokens } from '../src/reference/secrets/namespace-tokens.ts';
import { FaultSet } from '../src/reference/faults/types.ts';

// The reference's token store under a load test's pattern: many short-lived tokens, each presented
// at most once. Memory must follow the live tokens, and what is live must stay usable.
describe('reference TokenStore', () => {
  it('drops expired tokens nobody presents again, and keeps the live and the unexpiring ones', () => {
    const store = new TokenStore();
    const root = store.create({ policies: ['root'], namespace: '' });
    const live = store.create({ policies: ['default'], namespace: '', expiresAt: Date.now() + 60_000 });
    for (let i = 0; i < 20_000; i++) store.create({ policies: ['default'], namespace: '', expiresAt: Date.now() - 1 });
    expect(store.size).toBeLessThanOrEqual(2048);
    expect(store.use(root.id)?.id).toBe(root.id);
    expect(store.use(live.id)?.id).toBe(live.id);
  });

  it('when nothing expires, the sweeps drop nothing: every token stays usable', () => {
    const store = new TokenStore();
    const ids = Array.from({ length: 5_000 }, () => store.create({ policies: ['default'], namespace: '', expiresAt: Date.now() + 60_000 }).id);
    expect(store.size).toBe(5_000);
    for (const id of ids) expect(store.use(id)).toBeDefined();
  });

  it('an expired token is refused whether or not a sweep dropped it yet', () => {
    const store = new TokenStore();
    const gone = store.create({ policies: ['default'], namespace: '', expiresAt: Date.now() - 1 });
    expect(store.use(gone.id)).toBeUndefined();
  });
});

// OpenBao vault/namespace_store.go DeleteNamespace: a deleted namespace takes its own tokens and
// those of the namespaces below it, and no other namespace's, however its path ends.
describe('revokeNamespaceTokens', () => {
  it("revokes the deleted namespace's tokens and those below it, not a namespace whose path ends like it or begins like it", () => {
    const store = new TokenStore();
    const made = Object.fromEntries(['', 'c/', 'c/d/', 'a/c/', 'cx/', 'a/'].map((ns) => [ns, store.create({ policies: ['default'], namespace: ns }).id]));
    revokeNamespaceTokens(store, 'c/', new FaultSet());
    const kept = Object.entries(made).filter(([, id]) => store.peek(id)).map(([ns]) => ns);
    expect(kept).toEqual(['', 'a/c/', 'cx/', 'a/']);
  });
});
