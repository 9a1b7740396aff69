import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULES } from '../src/rules/catalog.ts';
import { wrongWaysMarkdown } from '../src/cli/commands/wrong-ways-doc.ts';

describe('docs/wrong-ways.md', () => {
  it('is the current text of `stackproof rules --wrong-ways`, with a section for every rule that names at least one way', () => {
    const text = wrongWaysMarkdown();
    expect(readFileSync('docs/wrong-ways.md', 'utf8'), 'docs/wrong-ways.md is stale: run `npx stackproof rules --wrong-ways > docs/wrong-ways.md`').toBe(text);
    for (const rule of RULES) {
      const section = text.split(`### ${rule.id} (`)[1]?.split('\n### ')[0] ?? '';
      expect(section.includes('\n- '), `${rule.id} names how it could be fooled`).toBe(true);
    }
  });
});
