import type { CpuUsage } from './cpu-watch.ts';

/**
 * Who ran out of CPU while a scenario lost arrivals or streams:
 * - `generator`: one of its threads (a Node event loop runs on one core) or the whole process was full;
 * - `target`: the target's process used all the cores, or the machine was full and the target was
 *   the one using most of it while the generator's threads still had time to spare;
 * - `machine`: the machine was full and other processes used most of it, or the target's share is unknown;
 * - `neither`: CPU was left on every side: the losses have another cause (a limit of the target's own);
 * - `unknown`: no /proc to read.
 */
export type SaturationVerdict = 'target' | 'generator' | 'machine' | 'neither' | 'unknown';

/** A thread or process at or above this share of what it can use counts as full. */
export const FULL_SHARE = 0.9;

export interface Saturation {
  verdict: SaturationVerdict;
  explanation: string;
}

/** Which side ran out, judged from the CPU used over the scenario (src/load/cpu-watch.ts). */
export function judgeSaturation(cpu: CpuUsage): Saturation {
  const capacity = cpu.cores * 100;
  const busiest = cpu.generator.threads[0];
  const shared = cpu.targetInGenerator ? ' (the target runs in the same process: the embedded reference)' : '';
  if (busiest && busiest.percent >= FULL_SHARE * 100) {
    return { verdict: 'generator', explanation: `the generator ran out: its ${busiest.name} was busy ${busiest.percent}% of a core, and one event loop cannot use more than one${shared}` };
  }
  if (cpu.generator.percent >= FULL_SHARE * capacity) {
    return { verdict: 'generator', explanation: `the generator ran out: it used ${cpu.generator.percent}% of the machine's ${capacity}%${shared}` };
  }
  if (cpu.machinePercent === undefined && !cpu.target) return { verdict: 'unknown', explanation: 'no /proc to read: who ran out of CPU is not known' };
  const generatorHadTime = busiest ? `its busiest thread, the ${busiest.name}, ${busiest.percent}%, so it was not the one held up` : 'no thread of it full';
  if (cpu.machinePercent !== undefined && cpu.machinePercent >= FULL_SHARE * capacity) {
    const full = `the machine's ${cpu.cores} cores were full (${cpu.machinePercent}% of ${capacity}%)`;
    if (!cpu.target) {
      return { verdict: 'machine', explanation: `${full}; the generator used ${cpu.generator.percent}% (${generatorHadTime}); the target's share is not known (${cpu.targetInGenerator ? 'it runs in the generator\'s process' : cpu.targetUnmeasured})` };
    }
    const others = cpu.othersPercent ?? 0;
    if (others >= cpu.target.percent && others >= cpu.generator.percent) {
      return { verdict: 'machine', explanation: `${full}, mostly by other processes (${others}%; the target ${cpu.target.percent}%, the generator ${cpu.generator.percent}%): measure on a quieter machine` };
    }
    if (cpu.target.percent >= cpu.generator.percent) {
      return { verdict: 'target', explanation: `the target ran out: ${full}, the target (${cpu.target.name}) used ${cpu.target.percent}%, the generator ${cpu.generator.percent}% (${generatorHadTime}), other processes ${others}%` };
    }
    return { verdict: 'generator', explanation: `the generator ran out: ${full}, and the generator used more of them (${cpu.generator.percent}%) than the target (${cpu.target.percent}%)` };
  }
  if (cpu.target && cpu.target.percent >= FULL_SHARE * capacity) {
    return { verdict: 'target', explanation: `the target ran out: ${cpu.target.name} used ${cpu.target.percent}% of the machine's ${capacity}%` };
  }
  const measured = [cpu.target ? `the target ${cpu.target.percent}%` : undefined, `the generator ${cpu.generator.percent}%${busiest ? ` (busiest thread ${busiest.percent}%)` : ''}`, cpu.machinePercent !== undefined ? `the machine ${cpu.machinePercent}% of ${capacity}%` : undefined].filter(Boolean).join(', ');
  return { verdict: 'neither', explanation: `neither ran out of CPU (${measured}): the losses come from something else, such as a limit of the target's own` };
}
