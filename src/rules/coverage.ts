import { RULES } from './catalog.ts';
import { normalizeSpecText, readSpec } from './spec-text.ts';
import { SPEC_FILES } from './spec-files.ts';

export interface SpecUnit {
  file: string;
  section: string;
  line: number;
  text: string;
  rules: string[];
}

/**
 * The rule-bearing units of a spec: table rows (not headers), numbered items and sentences of
 * prose under a section heading; lines that say a thing is "not shown" bear no rule.
 */
export function specUnits(file: string): SpecUnit[] {
  const lines = readSpec(file).split('\n');
  const units: SpecUnit[] = [];
  const path: string[] = [];
  let headerRowNext = false;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    const heading = /^(#{2,6})\s+(.*)$/.exec(line);
    if (heading) {
      path.length = heading[1]!.length - 2;
      path.push(heading[2]!.trim());
      headerRowNext = true;
      return;
    }
    if (path.length === 0 || line === '') return;
    if (line.startsWith('|')) {
      if (/^\|[\s:|-]+\|$/.test(line) || /not shown/i.test(line)) return;
      const prev = lines[i - 1]?.trim() ?? '';
      // The first row of a table is its header.
      if (!prev.startsWith('|')) return;
      units.push({ file, section: path.join(' > '), line: i + 1, text: line, rules: [] });
      return;
    }
    headerRowNext = false;
    for (const sentence of line.split(/(?<=\.)\s+(?=[A-Z])/)) {
      if (sentence.replace(/^\d+\.\s*/, '').length > 12 && !/not shown/i.test(sentence)) units.push({ file, section: path.join(' > '), line: i + 1, text: sentence, rules: [] });
    }
  });
  void headerRowNext;
  return units;
}

/** Every rule-bearing unit of the three specs, with the rules whose quotes stand in it. */
export function specCoverage(): { units: SpecUnit[]; covered: number; total: number } {
  const units = Object.values(SPEC_FILES).flatMap((f) => specUnits(f));
  for (const unit of units) {
    const text = normalizeSpecText(unit.text);
    for (const rule of RULES) {
      for (const s of rule.sources) {
        if (s.file !== unit.file) continue;
        const quote = normalizeSpecText(s.quote);
        if (text.includes(quote) || (quote.includes(text) && text.length > 20)) {
          if (!unit.rules.includes(rule.id)) unit.rules.push(rule.id);
        }
      }
    }
  }
  return { units, covered: units.filter((u) => u.rules.length > 0).length, total: units.length };
}
