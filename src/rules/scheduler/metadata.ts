import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.scheduler;

export const schedulerMetadataRules: Rule[] = [
  {
    id: 'scheduler.metadata.null-unsets',
    system: 'scheduler',
    title: 'POST /v1/client/metadata then GET returns the merged Meta; a key set to null is absent from Meta, and absent or null in Dynamic',
    level: 'MUST',
    sources: [
      { file, section: 'Resources and their fields > Node metadata response', quote: 'Merge of Static and Dynamic' },
      { file, section: 'Resources and their fields > Node metadata response', quote: "Set through the API; values may be null to mean unset, distinct from ''" },
      { file, section: 'Endpoints', quote: "Each value is a string, or null to mark the key unset ('' is a valid, distinct value)." },
    ],
    notes: [
      "Current Nomad deletes a key set to null from Dynamic unless the key is also static (hashicorp/nomad client/meta_endpoint.go NodeMeta.Apply, PR 18664: 1.5.10, 1.6.3 and 1.7.0 on); older releases keep it as null. Either way the key is unset, so absent and null both pass.",
    ],
  },
];
