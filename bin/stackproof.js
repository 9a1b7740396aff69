#!/usr/bin/env node
// An installed package runs the CLI compiled into dist/ (built when the package is packed). A clone
// has no dist/: there the CLI is TypeScript run through tsx, so no build step comes before
// `npx stackproof` and an edit takes effect at once.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
