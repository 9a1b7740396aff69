import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.secrets;

export const secretsCoreRules: Rule[] = [
  {
    id: 'secrets.core.list-empty-404',
    system: 'secrets',
    title: 'A LIST with no results answers 404 with {"errors":[]}, through the LIST verb and GET ?list=true',
    level: 'MUST',
    sources: [
      { file, section: 'Endpoints > Core', quote: 'When the result is empty the status is 404 with {errors:[]}' },
      { file, section: 'Errors', quote: 'empty LIST result' },
      { file, section: 'What the service does', quote: 'LIST (or GET with query parameter list=true) lists' },
    ],
  },
];
