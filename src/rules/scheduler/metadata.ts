import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.scheduler;

export const schedulerMetadataRules: Rule[] = [
  {
    id: 'scheduler.metadata.null-unsets',
    system: 'scheduler',
    title: 'POST /v1/client/metadata then GET returns the merged Meta; a key set to null is absent from Meta and null in Dynamic',
    level: 'MUST',
    sources: [
      { file, section: 'Resources and their fields > Node metadata response', quote: 'Merge of Static and Dynamic' },
      { file, section: 'Resources and their fields > Node metadata response', quote: "Set through the API; values may be null to mean unset, distinct from ''" },
      { file, section: 'Endpoints', quote: "Each value is a string, or null to mark the key unset ('' is a valid, distinct value)." },
    ],
  },
];
