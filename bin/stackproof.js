#!/usr/bin/env node
// An installed package runs the CLI compiled into dist/ (built when the package is packed). A clone
// has no dist/: there the CLI is TypeScript run through tsx, so no build step comes before
// `npx stackproof` and an edit takes effect at once.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  // tsx's loader hooks run on a thread of their own and see every import after register(), the
  // plain JavaScript of node_modules too: vitest's module graph took 1.5 s through them against
  // 0.4 s without. The commands that run suites load it first; their later imports of it are then
  // one resolve each.
  if (process.argv.slice(2).some((arg) => arg === 'conform' || arg === 'faults')) await import('vitest/node');
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
