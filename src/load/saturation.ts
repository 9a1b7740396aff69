import type { CpuUsage, ProcessCpu } from './cpu-watch.ts';

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
  const generatorFull = fullOf('the generator', cpu.generator, cpu.cores, cpu.targetInGenerator ? ' (the target runs in the same process: the embedded reference)' : '');
  const targetFull = cpu.target ? fullOf(`the target (${cpu.target.name})`, cpu.target, cpu.cores, '') : undefined;
  // Its own figures are what a full generator makes unreliable: it is named first.
  if (generatorFull) return { verdict: 'generator', explanation: `${generatorFull}${targetFull ? `; ${targetFull} too` : ''}` };
  if (targetFull) return { verdict: 'target', explanation: targetFull };
  if (cpu.machinePercent === undefined && !cpu.target) return { verdict: 'unknown', explanation: 'no /proc to read: who ran out of CPU is not known' };
  const capacity = cpu.cores * 100;
  const busiest = cpu.generator.threads[0];
  const generatorHadTime = busiest ? `its busiest thread, the ${busiest.name}, ${busiest.percent}%, so it was not the one held up` : 'no thread of it full';
  if (cpu.machinePercent !== undefined && cpu.machinePercent >= FULL_SHARE * capacity) {
    const full = `the machine's ${cpu.cores} cores were full (${cpu.machinePercent}% of ${capacity}%)`;
    if (!cpu.target) {
      return { verdict: 'machine', explanation: `${full}; the generator used ${cpu.generator.percent}% (${generatorHadTime}); the target's share is not known (${cpu.targetInGenerator ? "it runs in the generator's process" : cpu.targetUnmeasured})` };
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
  const measured = [
    cpu.target ? `the target ${cpu.target.percent}%${cpu.target.threads[0] ? ` (busiest thread ${cpu.target.threads[0].percent}%)` : ''}` : undefined,
    `the generator ${cpu.generator.percent}%${busiest ? ` (busiest thread ${busiest.percent}%)` : ''}`,
    cpu.machinePercent !== undefined ? `the machine ${cpu.machinePercent}% of ${capacity}%` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  return { verdict: 'neither', explanation: `neither ran out of CPU (${measured}): the losses come from something else, such as a limit of the target's own` };
}

/**
 * Why a side is full, or undefined: a thread busy FULL_SHARE of a core (one thread, such as a Node
 * event loop, can use no more), or the whole process busy FULL_SHARE of the cores it may run on.
 */
function fullOf(who: string, p: ProcessCpu, machineCores: number, note: string): string | undefined {
  const thread = p.threads[0];
  if (thread && thread.percent >= FULL_SHARE * 100) return `${who} ran out: its ${thread.name} was busy ${thread.percent}% of a core, and one thread cannot use more than one${note}`;
  const cores = p.cores ?? machineCores;
  if (p.percent >= FULL_SHARE * cores * 100) return `${who} ran out: it used ${p.percent}% of the ${cores * 100}% its ${cores} core(s) allow${note}`;
  return undefined;
}
