#!/usr/bin/env node
// Stryker's command test runner starts this once per mutant, in its sandbox (the working
// directory), with __STRYKER_ACTIVE_MUTANT__ naming the mutant; once without it for the dry run.
// It judges the mutant with the rules that reach its module (mutation/modules.json, handed over
// by scripts/mutation/mutate.mjs in STACKPROOF_MUTATE_MODULE), one `stackproof conform` process
// per dialect, and answers Stryker through its exit code:
//
//   exit 1  killed: a rule FAILed (or the reference crashed twice in a row).
//   exit 0  not killed: every rule PASSed, or the mutant is on code no mapped rule reaches, or a
//           rule stayed ERROR after a second try (a bound ran out: the machine may be busy, and an
//           ERROR is never a verdict). The command runner has no third answer, so these are
//           Survived to Stryker; outcomes.jsonl says which, and mutate.mjs turns the uncovered ones
//           into NoCoverage and keeps the undecided ones out of the incremental file, so the next
//           run judges them again.
//
// A hang is Stryker's to judge: it kills this process after its timeout (Timeout, counted as
// detected). The timeout mutate.mjs sets leaves room for the second try of an ERROR.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { steadyError } from './steady-error.mjs';

const ACTIVE = process.env.__STRYKER_ACTIVE_MUTANT__;
const entry = JSON.parse(process.env.STACKPROOF_MUTATE_MODULE ?? 'null');
const stateDir = process.env.STACKPROOF_MUTATE_STATE;
if (!entry || !stateDir) {
  console.error('run-mutant.mjs is started by scripts/mutation/mutate.mjs (npm run mutate -- <file>), which sets STACKPROOF_MUTATE_MODULE and STACKPROOF_MUTATE_STATE');
  process.exit(2);
}
const COVERAGE_HOOK = fileURLToPath(new URL('./coverage-hook.mjs', import.meta.url));

// The runs a mutant gets: one per dialect with the module's rules, and, where the map asks for it,
// one of the hashicorp dialect with --reference-behavior upstream and its own rules, judged with
// --expect (scripts/mutation/module-map.ts UpstreamRun). `name` keys coverage files and reasons.
// The upstream run goes first: it has a few rules, so it is the cheap one to end a mutant with.
const RUNS = [
  ...(entry.upstream ? [{ name: 'hashicorp+upstream', dialect: 'hashicorp', rules: entry.upstream.rules, upstream: true, expect: entry.upstream.expect }] : []),
  ...entry.dialects.map((d) => ({ name: d, dialect: d, rules: entry.rules, upstream: false, expect: [] })),
];

/**
 * One conform run of a run's rules; its rule outcomes, or how it ended without them. Under the
 * upstream behaviour a listed deviation that no longer happens counts as a FAIL: the upstream
 * reference exists to answer as the product does.
 */
async function conform(run, { rules = run.rules, bail, coverageOut, label }) {
  const reportsDir = join(stateDir, 'runs', `${label}-${run.name.replace('+', '-')}-${process.pid}-${Date.now()}`);
  const args = [
    ...(coverageOut ? ['--import', COVERAGE_HOOK] : []),
    'bin/stackproof.js', 'conform',
    '--systems', entry.system,
    '--rules', rules.join(','),
    '--reference-dialect', run.dialect,
    ...(run.upstream ? ['--reference-behavior', 'upstream'] : []),
    ...(run.expect.length ? ['--expect', run.expect.join(',')] : []),
    '--profile', entry.profile,
    '--seed', String(entry.seed),
    '--no-load-smoke',
    '--reports-dir', reportsDir,
    ...(bail ? ['--bail'] : []),
    ...(entry.oneAtATime ? ['--one-at-a-time'] : []),
  ];
  const started = performance.now();
  const { code, signal, tail } = await new Promise((done) => {
    const child = spawn(process.execPath, args, {
      cwd: process.cwd(),
      env: { ...process.env, ...(coverageOut ? { STACKPROOF_MUTATE_COVERAGE_OUT: coverageOut } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const keep = (chunk) => { out = (out + chunk).slice(-4000); };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (c, s) => done({ code: c, signal: s, tail: out }));
  });
  const ms = Math.round(performance.now() - started);
  const resultsFile = join(reportsDir, 'results.json');
  let results;
  if (existsSync(resultsFile)) results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  rmSync(reportsDir, { recursive: true, force: true });
  if (!results || !Array.isArray(results.rules)) return { ms, crashed: `exit ${code ?? signal}: ${tail.trim().split('\n').slice(-3).join(' | ')}` };
  const byOutcome = (o) => results.rules.filter((r) => r.outcome === o);
  const gone = (results.expectationFindings ?? [])
    .filter((f) => f.kind === 'no-longer-happens')
    .map((f) => ({ id: f.rule, outcome: 'FAIL', message: `the upstream reference no longer reproduces a listed deviation: ${f.message}` }));
  return { ms, fail: [...byOutcome('FAIL'), ...gone], error: byOutcome('ERROR'), rules: results.rules, code };
}

/** One conform run, with the second try an ERROR or a crash gets: ERROR alone is never a verdict. */
async function judged(run, label, bail) {
  const first = await conform(run, { bail, label });
  if (first.crashed || (first.fail.length === 0 && first.error.length > 0)) {
    // Only what was not decided runs again: the rules in ERROR (all of them after a crash).
    const again = await conform(run, { bail, label: `${label}-again`, rules: first.crashed ? run.rules : first.error.map((r) => r.id) });
    return { ...again, ms: first.ms + again.ms, first };
  }
  return first;
}

function record(line) {
  appendFileSync(join(stateDir, 'outcomes.jsonl'), `${JSON.stringify(line)}\n`);
}

/** Runs fn over items, at most `limit` at once. */
async function eachLimited(items, limit, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++];
      await fn(item);
    }
  }));
}

/** Per-rule dry runs at once: the rules mostly wait on the reference, so more than the cores fit. */
const RULE_DRY_CONCURRENCY = Number(process.env.STACKPROOF_MUTATE_DRY_CONCURRENCY ?? 3);

async function dryRun() {
  mkdirSync(join(stateDir, 'coverage'), { recursive: true });
  const timings = {};
  for (const r of RUNS) {
    const dialect = r.name;
    const coverageOut = join(stateDir, 'coverage', `${dialect}.json`);
    let run = await conform(r, { coverageOut, label: 'dry' });
    if (run.crashed || run.error.length > 0) run = await conform(r, { coverageOut, label: 'dry-again' });
    timings[dialect] = run.ms;
    if (run.crashed) {
      console.error(`dry run (${dialect}): stackproof conform ended without results: ${run.crashed}`);
      return 1;
    }
    const bad = [...run.fail, ...run.error];
    if (bad.length > 0) {
      // Without a clean baseline no mutant can be judged: the unmutated reference must pass.
      console.error(`dry run (${dialect}): the unmutated reference does not pass the mapped rules: ${bad.map((r) => `${r.id} ${r.outcome}: ${(r.message ?? '').split('\n')[0]}`).join('; ')}`);
      return 1;
    }
    if (!existsSync(coverageOut)) {
      console.error(`dry run (${dialect}): no coverage was written (${coverageOut})`);
      return 1;
    }
    const reached = JSON.parse(readFileSync(coverageOut, 'utf8')).length;
    console.log(`dry run (${dialect}): ${run.rules.length} rule(s) pass in ${run.ms} ms; ${reached} mutant(s) reached`);
    // Then each passing rule alone, to learn which mutants it reaches: a mutant is judged with the
    // rules that reach it, not with every mapped rule (a survivor otherwise waits for the slowest
    // rule of the module, e.g. 5 s of event-stream ACL for a mutant in an fs path). Code that every
    // run passes through (start-up, provisioning) is reached by every rule, so it keeps all of them.
    // A rule that does not pass alone keeps the mutants of the whole run (no narrowing for them).
    if (process.env.STACKPROOF_MUTATE_PER_RULE === '0') continue;
    const ids = run.rules.filter((x) => x.outcome === 'PASS').map((x) => x.id);
    const perRule = {};
    const ruleMs = {};
    const lonely = [];
    await eachLimited(ids, RULE_DRY_CONCURRENCY, async (id) => {
      const out = join(stateDir, 'coverage', `${dialect}.rule.${id}.json`);
      const alone = await conform(r, { rules: [id], coverageOut: out, label: `dry-${id}` });
      if (alone.crashed || alone.fail.length > 0 || alone.error.length > 0 || !existsSync(out)) {
        lonely.push(id);
        return;
      }
      perRule[id] = JSON.parse(readFileSync(out, 'utf8'));
      ruleMs[id] = alone.ms;
      rmSync(out, { force: true });
    });
    writeFileSync(join(stateDir, 'coverage', `${dialect}.rules.json`), JSON.stringify({ perRule, ruleMs, lonely }));
    console.log(`dry run (${dialect}): ${Object.keys(perRule).length} rule(s) measured alone${lonely.length ? `; ${lonely.length} did not pass alone and are judged with every mutant the whole run reached: ${lonely.join(', ')}` : ''}`);
  }
  writeFileSync(join(stateDir, 'dry-run.json'), JSON.stringify({ timings }));
  return 0;
}

/**
 * The rules of a run that reach a mutant: those whose lone dry run reached it, plus those that did
 * not pass alone. Undefined when the per-rule map is missing (every rule then).
 */
function rulesReaching(run, id) {
  const file = join(stateDir, 'coverage', `${run.name}.rules.json`);
  if (!existsSync(file)) return undefined;
  const { perRule, lonely } = JSON.parse(readFileSync(file, 'utf8'));
  const reaching = Object.entries(perRule).filter(([, ids]) => ids.includes(id)).map(([rule]) => rule);
  const rules = [...reaching, ...lonely];
  return rules.length > 0 ? rules : undefined;
}

/** How long a rule took alone in the dry run (ms), or the whole dry run of its run when unknown. */
function ruleDryMs(runName, rule) {
  const file = join(stateDir, 'coverage', `${runName}.rules.json`);
  if (existsSync(file)) {
    const ms = JSON.parse(readFileSync(file, 'utf8')).ruleMs?.[rule];
    if (typeof ms === 'number') return ms;
  }
  const dry = join(stateDir, 'dry-run.json');
  return existsSync(dry) ? JSON.parse(readFileSync(dry, 'utf8')).timings?.[runName] : undefined;
}

async function mutantRun(id) {
  const started = performance.now();
  const covering = RUNS.filter((r) => {
    const file = join(stateDir, 'coverage', `${r.name}.json`);
    return existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).includes(id);
  });
  if (covering.length === 0) {
    record({ mutant: id, status: 'uncovered', ms: Math.round(performance.now() - started) });
    console.log(`mutant ${id}: no mapped rule reaches it in the dry run (${RUNS.map((r) => r.name).join(', ')}): NoCoverage`);
    return 0;
  }
  const undecided = [];
  const judgedWith = [];
  for (const r of covering) {
    const dialect = r.name;
    const rules = rulesReaching(r, id);
    const run = await judged(rules ? { ...r, rules } : r, `m${id}`, true);
    judgedWith.push(...(rules ?? r.rules).map((rule) => `${rule} (${r.name})`));
    if (run.crashed) {
      record({ mutant: id, status: 'killed', dialect, crash: run.crashed, ms: Math.round(performance.now() - started) });
      console.log(`mutant ${id}: the reference crashed twice (${dialect}): ${run.crashed}`);
      return 1;
    }
    if (run.fail.length > 0) {
      const rule = run.fail[0];
      record({ mutant: id, status: 'killed', dialect, rule: rule.id, ms: Math.round(performance.now() - started) });
      console.log(`mutant ${id}: FAIL ${rule.id} (${dialect}): ${(rule.message ?? '').split('\n')[0].slice(0, 300)}`);
      return 1;
    }
    if (run.error.length > 0) {
      undecided.push(...run.error.map((r) => ({ dialect, rule: r.id, message: (r.message ?? '').split('\n')[0].slice(0, 200), steady: steadyError(r, run.first, ruleDryMs(dialect, r.id)) })));
    }
  }
  const ms = Math.round(performance.now() - started);
  const steady = undecided.filter((u) => u.steady);
  if (steady.length > 0) {
    const u = steady[0];
    record({ mutant: id, status: 'killed', dialect: u.dialect, rule: u.rule, error: `${u.steady}: ${u.message}`, ms });
    console.log(`mutant ${id}: ERROR ${u.rule} (${u.dialect}) twice, the same way (${u.steady}): ${u.message}`);
    return 1;
  }
  if (undecided.length > 0) {
    record({ mutant: id, status: 'undecided', undecided: undecided.map(({ steady: _, ...u }) => u), ms });
    console.log(`mutant ${id}: no FAIL, and ERROR twice: ${undecided.map((u) => `${u.rule} (${u.dialect})`).join(', ')}: not counted as killed`);
    return 0;
  }
  record({ mutant: id, status: 'survived', dialects: covering.map((r) => r.name), rules: judgedWith, ms });
  console.log(`mutant ${id}: every mapped rule that reaches it passes (${judgedWith.join(', ')})`);
  return 0;
}

process.exitCode = ACTIVE === undefined ? await dryRun() : await mutantRun(ACTIVE);

