import { metadataKeyPrefix } from '../../src/provision/scheduler-provisioner.ts';
import type { RuleKit } from '../kit/rule-kit.ts';

/**
 * A dynamic node metadata key this run creates: `stackproof.<run prefix with '_' for '-'>.<rest>`,
 * so the rules touch nothing else on a shared node and the end-of-run sweep removes any a rule
 * could not.
 *
 * The rules share as few keys as they can: Nomad 1.5.0-1.5.9 and 1.6.0-1.6.2 keep a key unset
 * through the API as null in the node's dynamic metadata, and no API call removes it
 * (hashicorp/nomad client/meta_endpoint.go NodeMeta.Apply copies the null into the dynamic map;
 * PR 18664 deletes it since 1.5.10, 1.6.3 and 1.7.0). Every key a run touches stays on such a node.
 */
export function runMetadataKey(kit: RuleKit, rest: string): string {
  return `${metadataKeyPrefix(kit.ctx.runPrefix)}${rest}`;
}

/**
 * The run's one key for an update that must change nothing (a key of its own set to null, since
 * Nomad refuses an empty Meta): the rules that only need an accepted or refused update
 * (ids.full-only, acl.client-endpoints, endpoints.produces) and the metadata rules that set a value
 * and unset it again all use it, one after another.
 */
export function unsetKey(kit: RuleKit): string {
  return runMetadataKey(kit, 'unset');
}
