import type { LoadScenarioResult } from './results-model.ts';

type Cpu = NonNullable<LoadScenarioResult['cpu']>;

/** The CPU figures in one line: each side in percent of one core, the machine out of all its cores. */
export function cpuLine(cpu: Cpu): string {
  const side = (p: Cpu['generator']) => {
    const threads = p.threads.filter((t) => t.percent >= 1).map((t) => `${t.name} ${t.percent}%`).join(', ');
    return `${p.percent}%${p.cores !== undefined && p.cores !== cpu.cores ? ` of its ${p.cores} core(s)` : ''}${threads ? ` (${threads})` : ''}`;
  };
  const target = cpu.target
    ? `target ${cpu.target.name} (pid ${cpu.target.pid}) ${side(cpu.target)}`
    : cpu.targetInGenerator
      ? "target in the generator's own process"
      : `target not measured (${cpu.targetUnmeasured})`;
  const machine = cpu.machinePercent !== undefined ? `; machine ${cpu.machinePercent}% of ${cpu.cores * 100}%` : '';
  const others = cpu.othersPercent !== undefined ? `; other processes ${cpu.othersPercent}%` : '';
  return `CPU (percent of one core${cpu.about ? `, over ${cpu.about}: ${(cpu.windowMs / 1000).toFixed(1)} s` : ''}): ${target}; generator ${side(cpu.generator)}${others}${machine}`;
}

/**
 * What a load row lost and why, in lines (the console prints them under the row, the HTML report
 * beside it): why each stream ended, grouped by cause, then the CPU figures and who ran out.
 */
export function lossLines(r: LoadScenarioResult): string[] {
  const lines = (r.streams?.endings ?? []).map((g) => `streams: ${g.explanation}`);
  if (r.saturation && r.cpu) lines.push(cpuLine(r.cpu), `who ran out: ${r.saturation.explanation}`);
  return lines;
}
