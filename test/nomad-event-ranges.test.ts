import { describe, expect, it } from 'vitest';
import { readExpectationFiles } from '../src/expectations/load-expectations.ts';
import { satisfies } from '../src/expectations/version-range.ts';

// The ranges of Nomad's event-stream deviations at each end, as read in hashicorp/nomad at the tags
// named (issue 53 part 2), and as the real 1.6.1 and 2.0.5 answered:
// - namespace-star-acl: acl/acl.go AllowNamespaceOperation grants the namespace '*' when any
//   namespace allows the operation from v1.1.15, v1.2.9 and v1.3.2 on (absent at v1.1.14, v1.2.8,
//   v1.3.1); the fix of CVE-2025-0937 (GH-25089, nomad/event_endpoint.go validateACL) is in v1.9.6
//   and v1.10.0 (absent at v1.9.5), and in Enterprise 1.7.18 and 1.8.10 (CHANGELOG). Met on 1.6.1.
// - node-payload: Node.Resources and Node.Reserved removed in v1.11.0 (PR 26951); through v1.10.5
//   the client sends both (client/client.go setupNode). 1.6.1 passes, 2.0.5 has neither.
// - topic-union: nomad/stream/subscription.go filter as it is since v1.0.0, the first with the stream.
describe("Nomad's event-stream deviations hold for the versions of their ranges, and only those", () => {
  const nomad = readExpectationFiles(['nomad'])[0]!;
  const range = (rule: string) => nomad.expectations.find((e) => e.rule === rule)!.range!;
  it.each([
    ['scheduler.events.namespace-star-acl', ['1.1.15', '1.2.9', '1.3.2', '1.6.1', '1.7.17+ent', '1.8.9+ent', '1.9.5'], ['1.0.18', '1.1.14', '1.2.8', '1.3.1', '1.7.18+ent', '1.8.10+ent', '1.9.6', '1.10.0', '2.0.5']],
    ['scheduler.events.node-payload', ['1.11.0', '2.0.5'], ['1.6.1', '1.10.5']],
    ['scheduler.events.topic-union', ['1.0.0', '1.6.1', '2.0.5'], ['0.12.12']],
  ])('%s holds for %j and not for %j', (rule, inside, outside) => {
    for (const v of inside) expect(satisfies(v, range(rule)), `${v} in ${range(rule)}`).toBe(true);
    for (const v of outside) expect(satisfies(v, range(rule)), `${v} in ${range(rule)}`).toBe(false);
  });
});
