import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.secrets;

/** Spec 000: the key-value engine, versions 1 and 2. */
export const secretsKvRules: Rule[] = [
  {
    id: 'secrets.kv.list-keys-at-path',
    system: 'secrets',
    title: 'Listing a directory of the version 1 engine returns the keys at that path: its secrets and sub-directories, not deeper keys; a secret listed as a directory with nothing beneath it lists nothing (404)',
    level: 'MUST',
    sources: [{ file, section: 'What the service does', quote: 'listing is allowed on directories only and returns the keys at the path' }],
    notes: ['Vault lists the storage keys under the path with a slash appended, so a secret with nothing beneath it lists nothing, and the empty list answers 404 (vault-plugin-secrets-kv passthrough.go handleList).'],
  },
  {
    id: 'secrets.kv.v1-model',
    system: 'secrets',
    title: 'Any sequence of writes, reads, deletes and lists on the version 1 engine agrees with a simple model at every step',
    level: 'MUST',
    sources: [
      { file, section: 'What the service does', quote: 'GET reads; POST and PUT are synonyms and write; DELETE deletes' },
      { file, section: 'What the service does', quote: 'In the version 1 key-value engine a secret is read with GET /v1/secret/<key>' },
    ],
  },
  {
    id: 'secrets.kv.v2-data-path',
    system: 'secrets',
    title: "The version 2 engine takes 'data/' between the mount and the name and the body {data:{...}}, and reads the secret back there",
    level: 'MUST',
    capability: 'kvV2',
    sources: [
      {
        file,
        section: 'What the service does',
        quote: "In the version 2 engine the path has 'data/' between the mount and the secret name, e.g. POST /v1/secret/data/<key> with body {data:{<name>:<value>}}.",
      },
    ],
  },
  {
    id: 'secrets.kv.v2-model',
    system: 'secrets',
    title: 'Any sequence of writes, reads and deletes through data/ paths of the version 2 engine agrees with a simple model',
    level: 'MUST',
    capability: 'kvV2',
    sources: [
      { file, section: 'What the service does', quote: 'GET reads; POST and PUT are synonyms and write; DELETE deletes' },
      { file, section: 'What the service does', quote: "In the version 2 engine the path has 'data/' between the mount and the secret name" },
    ],
  },
];
