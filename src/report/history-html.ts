import { chartAssets, chartFigure, type ChartSpec } from './chart-spec.ts';
import { loadSeriesKey, ruleSetKey, runLabel, targetKey, type HistoryRun, type SkippedFile } from './history-runs.ts';
import { PAGE_STYLE } from './page-style.ts';
import type { LoadScenarioResult, Outcome, RunResults } from './results-model.ts';
import { escapeMarkup as h } from './xml-escape.ts';

const COUNTED: Array<{ outcome: Outcome; color: string }> = [
  { outcome: 'PASS', color: '#3fa35b' },
  { outcome: 'FAIL', color: '#d23c3c' },
  { outcome: 'ERROR', color: '#e59a2b' },
  { outcome: 'SKIP', color: '#8a90a0' },
  { outcome: 'EXPECTED', color: '#5d9ad0' },
  { outcome: 'WAIVED', color: '#8b6fd0' },
  { outcome: 'INTERRUPTED', color: '#c9b458' },
];

/**
 * One self-contained page over many runs: per target, the rule counts of each system run by run,
 * the rules whose outcome changed and when, and each load scenario's figures and thresholds over
 * time. Runs of different targets, profiles or rule sets are drawn apart, never on one line.
 */
export function renderHistoryHtml(runs: HistoryRun[], skipped: SkippedFile[], source: string): string {
  const groups = groupBy(runs, (r) => targetKey(r.results));
  const charts: ChartSpec[] = [];
  const sections = [...groups.entries()].map(([key, members], gi) => renderTargetGroup(key, members, `g${gi}`, charts));
  const assets = chartAssets(charts);
  const span = runs.length ? `${runs[0]!.results.run.startedAt.slice(0, 16).replace('T', ' ')} to ${runs[runs.length - 1]!.results.run.startedAt.slice(0, 16).replace('T', ' ')} UTC` : 'no runs';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stackproof history: ${runs.length} runs</title>
<style>${assets.style}${PAGE_STYLE}</style>
</head>
<body>
<nav class="sticky" data-testid="sticky-summary"><span class="verdict-short">${runs.length} runs</span> <span>${h(span)}</span> ${[...groups.keys()].map((k, gi) => `<a href="#g${gi}">${h(k)}</a>`).join(' · ')}</nav>
<header>
  <h1>stackproof history</h1>
  <p data-testid="history-source">${runs.length} run(s) read from <code>${h(source)}</code>, ${h(span)}, in ${groups.size} group(s) of the same targets.${skipped.length ? ` ${skipped.length} file(s) left out:` : ''}</p>
  ${skipped.length ? `<details><summary>${skipped.length} file(s) that are not a run this page can show</summary><ul>${skipped.map((s) => `<li><code>${h(s.file)}</code>: ${h(s.why)}</li>`).join('')}</ul></details>` : ''}
</header>
<main>
${sections.join('\n') || '<p>No stackproof results.json was found.</p>'}
</main>
${assets.body}
</body>
</html>
`;
}

function renderTargetGroup(key: string, members: HistoryRun[], id: string, charts: ChartSpec[]): string {
  const conformance = groupBy(
    members.filter((m) => m.results.rules.length > 0),
    (m) => ruleSetKey(m.results),
  );
  const parts = [...conformance.entries()].map(([setKey, runs], si) => renderConformanceSeries(setKey, runs, `${id}-c${si}`, charts));
  const load = new Map<string, Array<{ run: RunResults; row: LoadScenarioResult }>>();
  for (const m of members) {
    const seen = new Set<string>();
    for (const row of m.results.load) {
      const k = loadSeriesKey(row);
      // A run that ran one scenario twice with the same engine and rate shows its first row.
      if (seen.has(k)) continue;
      seen.add(k);
      load.set(k, [...(load.get(k) ?? []), { run: m.results, row }]);
    }
  }
  const loadParts = [...load.entries()].map(([k, points], li) => renderLoadSeries(k, points, `${id}-l${li}`, charts));
  return `<section class="target-group" id="${id}" data-testid="history-group"><h2>Targets: ${h(key)}</h2>
  <p>${members.length} run(s).</p>
  ${parts.join('')}
  ${loadParts.length ? `<h3>Load</h3>${loadParts.join('')}` : ''}
  </section>`;
}

function renderConformanceSeries(setKey: string, runs: HistoryRun[], id: string, charts: ChartSpec[]): string {
  const systems = [...new Set(runs.flatMap((r) => r.results.rules.map((x) => x.system)))].sort();
  const x = runs.map((r) => epochSeconds(r.results));
  const labels = runs.map((r) => runLabel(r.results));
  const perSystem = systems.map((system, si) => {
    const counts = runs.map((r) => countOutcomes(r.results, system));
    const shown = COUNTED.filter((c) => counts.some((n) => (n[c.outcome] ?? 0) > 0));
    const chartId = `${id}-s${si}`;
    charts.push({
      id: chartId,
      caption: `${system}: rules by outcome, run by run`,
      x: { label: 'run started', kind: 'time', pointLabels: labels },
      y: { label: 'rules', unit: 'rules' },
      series: shown.map((c) => ({ label: c.outcome, color: c.color, style: 'line' as const })),
      data: [x, ...shown.map((c) => counts.map((n) => n[c.outcome] ?? 0))],
    });
    const rows = runs
      .map(
        (r, i) => `<tr data-testid="history-counts-row"><td>${h(labels[i]!)}</td>${shown.map((c) => `<td class="num">${counts[i]![c.outcome] ?? 0}</td>`).join('')}<td>${h(r.results.summary.verdict)}</td></tr>`,
      )
      .join('');
    return `<h4>${h(system)}</h4><div class="charts">${chartFigure(charts[charts.length - 1]!)}</div>
    <details open><summary>${runs.length} run(s), as numbers</summary><table class="load" data-testid="history-counts-${h(system)}"><thead><tr><th>Run</th>${shown.map((c) => `<th class="num">${c.outcome}</th>`).join('')}<th>Verdict of the run</th></tr></thead><tbody>${rows}</tbody></table></details>`;
  });
  return `<div class="series" data-testid="conformance-series"><h3>Conformance: ${h(setKey)}, ${runs.length} run(s)</h3>${perSystem.join('')}${renderFlips(runs)}</div>`;
}

function renderFlips(runs: HistoryRun[]): string {
  const ids = [...new Set(runs.flatMap((r) => r.results.rules.map((x) => x.id)))].sort();
  const byRun = runs.map((r) => new Map(r.results.rules.map((x) => [x.id, x.outcome] as const)));
  const flips = ids
    .map((ruleId) => {
      const outcomes = byRun.map((m) => m.get(ruleId));
      const changes: string[] = [];
      let lastChange = -1;
      for (let i = 1; i < outcomes.length; i++) {
        if (outcomes[i] !== outcomes[i - 1]) {
          changes.push(`${runs[i]!.results.run.startedAt.slice(0, 16).replace('T', ' ')}: ${outcomes[i - 1] ?? 'not run'} → ${outcomes[i] ?? 'not run'}`);
          lastChange = i;
        }
      }
      return { ruleId, outcomes, changes, lastChange };
    })
    .filter((f) => f.changes.length > 0)
    .sort((a, b) => b.lastChange - a.lastChange || a.ruleId.localeCompare(b.ruleId));
  if (flips.length === 0) return `<p data-testid="no-flips">No rule changed outcome over these ${runs.length} run(s).</p>`;
  const rows = flips
    .map(
      (f) => `<tr data-testid="flip-${h(f.ruleId)}"><td class="id">${h(f.ruleId)}</td><td><span class="strip">${f.outcomes
        .map((o, i) => `<span class="${o ?? 'none'}" title="${h(`${runLabel(runs[i]!.results)}: ${o ?? 'not run'}`)}"></span>`)
        .join('')}</span></td><td>${f.changes.map(h).join('<br>')}</td><td><span class="badge ${f.outcomes[f.outcomes.length - 1] ?? ''}">${f.outcomes[f.outcomes.length - 1] ?? 'not run'}</span></td></tr>`,
    )
    .join('');
  return `<h4>Rules whose outcome changed (${flips.length})</h4>
  <table class="rules" data-testid="flips"><thead><tr><th>Rule</th><th>Outcome run by run (oldest left)</th><th>When it changed</th><th>Last</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function renderLoadSeries(key: string, points: Array<{ run: RunResults; row: LoadScenarioResult }>, id: string, charts: ChartSpec[]): string {
  const x = points.map((p) => epochSeconds(p.run));
  const labels = points.map((p) => runLabel(p.run));
  const figures = points.map((p) => (p.row.error ? undefined : p.row));
  const limit = lastLimit(points.map((p) => p.row));
  const latency: ChartSpec = {
    id: `${id}-latency`,
    caption: `${key}: p50 and p99 run by run${limit !== undefined ? ', with the p99 threshold' : ''}`,
    x: { label: 'run started', kind: 'time', pointLabels: labels },
    y: { label: 'latency', unit: 'ms' },
    series: [
      { label: 'p50', color: '#2a7de1', style: 'line' },
      { label: 'p99', color: '#d9480f', style: 'line' },
      ...(limit !== undefined ? [{ label: 'p99 threshold', color: '#d23c3c', style: 'dashed' as const }] : []),
    ],
    data: [
      x,
      figures.map((f) => f?.latencyMs.p50 ?? null),
      figures.map((f) => f?.latencyMs.p99 ?? null),
      ...(limit !== undefined ? [points.map((p) => p.row.thresholds.find((t) => t.name.startsWith('p99 latency'))?.limit ?? null)] : []),
    ],
  };
  const throughput: ChartSpec = {
    id: `${id}-throughput`,
    caption: `${key}: throughput run by run`,
    x: { label: 'run started', kind: 'time', pointLabels: labels },
    y: { label: 'throughput', unit: '/s' },
    series: [{ label: 'throughput', color: '#5b7fb8', style: 'line' }],
    data: [x, figures.map((f) => f?.throughput ?? null)],
  };
  const errors: ChartSpec = {
    id: `${id}-errors`,
    caption: `${key}: errors and dropped requests run by run`,
    x: { label: 'run started', kind: 'time', pointLabels: labels },
    y: { label: 'requests', unit: 'requests' },
    series: [
      { label: 'errors', color: '#d23c3c', style: 'line' },
      { label: 'dropped', color: '#e59a2b', style: 'line' },
    ],
    data: [x, figures.map((f) => f?.errors ?? null), figures.map((f) => f?.dropped ?? null)],
  };
  charts.push(latency, throughput, errors);
  const rows = points
    .map((p, i) => {
      const r = p.row;
      const verdict = r.error ? '<span class="badge ERROR">no figures</span>' : r.thresholds.length === 0 ? '—' : r.thresholds.every((t) => t.ok) ? '<span class="badge PASS">met</span>' : `<span class="badge FAIL">breached</span> ${r.thresholds.filter((t) => !t.ok).map((t) => h(`${t.name} ${t.actual} > ${t.limit}`)).join(', ')}`;
      if (r.error) return `<tr data-testid="history-load-row"><td>${h(labels[i]!)}</td><td colspan="7">${h(r.error)}</td><td>${verdict}</td></tr>`;
      return `<tr data-testid="history-load-row"><td>${h(labels[i]!)}</td><td class="num">${r.requests}</td><td class="num">${r.errors}</td><td class="num">${r.dropped}</td><td class="num">${r.throughput}</td><td class="num">${r.latencyMs.p50}</td><td class="num">${r.latencyMs.p99}</td><td class="num">${r.latencyMs.max}</td><td>${verdict}</td></tr>`;
    })
    .join('');
  return `<div class="series" data-testid="load-series"><h4>${h(key)}, ${points.length} run(s)</h4>
  ${renderFirstBreaches(points)}
  <div class="charts">${[latency, throughput, errors].map(chartFigure).join('')}</div>
  <details open><summary>${points.length} run(s), as numbers</summary><table class="load"><thead><tr><th>Run</th><th class="num">Requests</th><th class="num">Errors</th><th class="num">Dropped</th><th class="num">Throughput/s</th><th class="num">p50 ms</th><th class="num">p99 ms</th><th class="num">max ms</th><th>Thresholds</th></tr></thead><tbody>${rows}</tbody></table></details></div>`;
}

/** For each threshold: the run that first breached it, each run that breached it again after meeting it, and how often. */
function renderFirstBreaches(points: Array<{ run: RunResults; row: LoadScenarioResult }>): string {
  const names = [...new Set(points.flatMap((p) => p.row.thresholds.map((t) => t.name)))];
  const lines = names.flatMap((name) => {
    const verdicts = points.map((p) => p.row.thresholds.find((t) => t.name === name));
    const breached = verdicts.filter((v) => v && !v.ok).length;
    if (breached === 0) return [];
    const starts = verdicts.flatMap((v, i) => (v && !v.ok && !(i > 0 && verdicts[i - 1] && !verdicts[i - 1]!.ok) ? [i] : []));
    return [`${h(name)}: breached in ${breached} of ${points.length} run(s); first on ${h(runLabel(points[starts[0]!]!.run))}${starts.length > 1 ? `; breached again from ${starts.slice(1).map((i) => h(points[i]!.run.run.startedAt.slice(0, 16).replace('T', ' '))).join(', ')}` : ''}`];
  });
  return lines.length ? `<ul class="breaches" data-testid="first-breaches">${lines.map((l) => `<li>${l}</li>`).join('')}</ul>` : '<p>No threshold breached in these runs.</p>';
}

function lastLimit(rows: LoadScenarioResult[]): number | undefined {
  for (const r of [...rows].reverse()) {
    const t = r.thresholds.find((x) => x.name.startsWith('p99 latency'));
    if (t) return t.limit;
  }
  return undefined;
}

function countOutcomes(results: RunResults, system: string): Partial<Record<Outcome, number>> {
  const counts: Partial<Record<Outcome, number>> = {};
  for (const r of results.rules) if (r.system === system) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  return counts;
}

function epochSeconds(results: RunResults): number {
  return Math.round(Date.parse(results.run.startedAt) / 1000);
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}
