import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../run/package-root.ts';

/** The spec files are vendored in spec/ so that the tool needs nothing outside its own folder. */
export const SPEC_DIR = join(PACKAGE_ROOT, 'spec');

export function readSpec(file: string): string {
  return readFileSync(join(SPEC_DIR, file), 'utf8');
}

/** Collapses whitespace and table pipes, so a quote matches however the spec laid the sentence out. */
export function normalizeSpecText(text: string): string {
  return text.replace(/\s*\|\s*/g, ' | ').replace(/\s+/g, ' ').trim();
}

/**
 * The text of a section named by its heading path (`Endpoints > Core`): from that heading to the
 * next heading of the same or a higher level. Undefined when the path does not exist.
 */
export function sectionText(spec: string, path: string): string | undefined {
  const names = path.split('>').map((s) => s.trim());
  const lines = spec.split('\n');
  let from = 0;
  let to = lines.length;
  let level = 1;
  for (const name of names) {
    let found = -1;
    for (let i = from; i < to; i++) {
      const m = /^(#{2,6})\s+(.*)$/.exec(lines[i]!);
      if (m && m[1]!.length > level && m[2]!.trim() === name) {
        found = i;
        level = m[1]!.length;
        break;
      }
    }
    if (found < 0) return undefined;
    let end = to;
    for (let i = found + 1; i < to; i++) {
      const m = /^(#{1,6})\s/.exec(lines[i]!);
      if (m && m[1]!.length <= level) {
        end = i;
        break;
      }
    }
    from = found + 1;
    to = end;
  }
  return lines.slice(from, to).join('\n');
}
