import { randomInt } from 'node:crypto';
import type { DialectName } from '../../config/dialects.ts';
import { loadConfig } from '../../config/load-config.ts';
import { FAULTS } from '../../reference/faults/catalog.ts';
import { UnknownFaultError } from '../../reference/reference.ts';
import { selectRules } from '../../rules/catalog.ts';
import { availableParallelism } from 'node:os';
import { runFaultMatrix } from '../../run/fault-matrix.ts';
import { runShard } from '../../run/fault-matrix-shards.ts';
import { EXIT } from '../exit-codes.ts';
import { flagsToConfig, type CommonFlags } from '../flags.ts';

export async function runFaultsCommand(flags: CommonFlags & { json?: boolean; fault: string[]; dialect: DialectName; jobs?: string; baseline?: boolean; fixtures?: 'control' | 'upstream' }): Promise<number> {
  const config = loadConfig({ env: {}, flags: { ...flagsToConfig(flags), profile: flags.profile ?? 'strict' } });
  const rules = selectRules(config.systems, config.rules, config.profile);
  const ruleIds = new Set(rules.map((r) => r.id));
  const unknown = flags.fault.filter((id) => !FAULTS.some((f) => f.id === id));
  if (unknown.length) throw new UnknownFaultError(`unknown fault id(s): ${unknown.join(', ')}; see \`stackproof rules\``);
  const faults = FAULTS.filter((f) => (flags.fault.length ? flags.fault.includes(f.id) : f.breaks.some((id) => ruleIds.has(id))));
  if (flags.fixtures === 'upstream' && flags.dialect !== 'hashicorp') throw new UnknownFaultError('--fixtures upstream needs --dialect hashicorp: only that dialect has the admin APIs the provisioners use');
  const seed = config.seed ?? randomInt(0, 2 ** 31 - 1);
  const log = flags.json ? (line: string) => process.stderr.write(`${line}\n`) : (line: string) => process.stdout.write(`${line}\n`);
  log(`fault matrix: ${faults.length} fault(s) against ${rules.length} rule(s), dialect ${flags.dialect}, seed ${seed}, ${Math.min(Number(flags.jobs ?? 2) || 1, faults.length || 1)} job(s)`);
  const jobs = Math.max(1, Math.min(Number(flags.jobs ?? Math.min(2, availableParallelism())) || 1, faults.length || 1));
  // Faults are dealt round-robin: shard 0 runs here with the baseline, the others in child processes.
  const shards = Array.from({ length: jobs }, (_, i) => faults.filter((_, j) => j % jobs === i));
  const [local, ...remote] = await Promise.all([
    runFaultMatrix({
      faults: shards[0],
      rules,
      dialect: flags.dialect,
      runs: config.runs,
      seed,
      testTimeoutMs: config.testTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      log,
      baseline: flags.baseline !== false,
      fixtures: flags.fixtures,
    }),
    ...shards.slice(1).map((shard) => runShard({ faults: shard, dialect: flags.dialect, runs: config.runs, seed, profile: config.profile, log, fixtures: flags.fixtures })),
  ]);
  const order = new Map(faults.map((f, i) => [f.id, i]));
  const verdicts = [...local!.faults, ...remote.flat()].sort((a, b) => order.get(a.fault)! - order.get(b.fault)!);
  const report = { ...local!, faults: verdicts, allCaught: local!.baseline.allPass && verdicts.length === faults.length && verdicts.every((v) => v.caught) };
  if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    const caught = report.faults.filter((f) => f.caught).length;
    log(`${caught}/${report.faults.length} faults caught; baseline ${report.baseline.allPass ? 'all PASS' : 'NOT all PASS'}`);
  }
  return report.allCaught ? EXIT.OK : EXIT.RULES_FAILED;
}
