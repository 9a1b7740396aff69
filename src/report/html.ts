import { chartAssets, chartFigure } from './chart-spec.ts';
import { failureInWords } from './failure-words.ts';
import { scenarioChartSpecs } from './load-chart-data.ts';
import { lossLines } from './load-losses.ts';
import { PAGE_STYLE } from './page-style.ts';
import type { LoadScenarioResult, RuleResult, RunResults } from './results-model.ts';
import { escapeMarkup as h } from './xml-escape.ts';
import { IDS_SHOWN_UP_TO, percent, upstreamCountingNote } from './skip-summary.ts';

/**
 * One self-contained HTML file: no external scripts, styles, fonts or images, so it opens from a
 * CI artifact with no network.
 */
export function renderHtml(results: RunResults): string {
  const { summary, run } = results;
  const hasRules = results.rules.length > 0;
  const hasLoad = results.load.length > 0;
  const charts = results.load.flatMap((s, i) => scenarioChartSpecs(s, i));
  const assets = chartAssets(charts);
  const kind = hasRules && hasLoad ? 'conformance and load' : hasLoad ? 'load' : 'conformance';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stackproof ${kind} report: ${h(summary.verdict)}</title>
<style>${assets.style}${PAGE_STYLE}</style>
</head>
<body>
${renderStickySummary(results)}
<header>
  <h1>stackproof ${kind} report</h1>
  <p class="verdict ${summary.exitCode === 0 ? 'ok' : 'bad'}" data-testid="verdict">${h(summary.verdict)}</p>
  ${summary.interrupted ? `<p data-testid="interrupted">Stopped by ${h(summary.interrupted.signal)} before its end: the rules whose tests were running are INTERRUPTED (no verdict), and ${summary.interrupted.notRun.length} rule(s) did not run${summary.interrupted.notRun.length ? `: <span class="cite">${summary.interrupted.notRun.map(h).join(', ')}</span>` : ''}.</p>` : ''}
  <dl class="run" id="run">
    <dt>Run</dt><dd>${h(run.id)}, ${h(run.startedAt)}, ${(run.durationMs / 1000).toFixed(1)} s; stackproof ${h(results.tool.version)}</dd>
    <dt>Command</dt><dd><code>${h(run.command)}</code></dd>
    ${hasRules ? `<dt>Profile</dt><dd>${h(run.profile)}; seed ${run.seed}; ${run.runs} runs per property</dd>` : ''}
    ${run.faults.length ? `<dt>Faults on</dt><dd>${run.faults.map(h).join(', ')}</dd>` : ''}
    ${run.referenceBehavior && run.referenceBehavior !== 'spec' ? `<dt>Reference</dt><dd>behaviour ${h(run.referenceBehavior)}: reproduces the products' listed spec deviations</dd>` : ''}
    ${run.expect?.length ? `<dt>Expected deviations of</dt><dd>${run.expect.map(h).join(', ')} (expectation files shipped with stackproof)</dd>` : ''}
    ${run.runPrefix ? `<dt>Run prefix</dt><dd><code>${h(run.runPrefix)}</code>: every name the run gave to what it made on the targets</dd>` : ''}
    ${run.provisioning?.length ? `<dt>Fixtures</dt><dd data-testid="provisioning"><details><summary>${run.provisioning.length} line(s): what the provisioners found, made and removed</summary>${run.provisioning.map(h).join('<br>')}</details></dd>` : ''}
    <dt>Targets</dt><dd>${results.targets.map((t) => `${h(t.system)}: <code>${h(t.url)}</code> (${h(t.dialect)}${t.embedded ? ', embedded reference' : ''})${t.product ? ` <span data-testid="product-${h(t.system)}">${h(t.product.name)} ${h(t.product.version ?? '(version unknown)')}</span> <span class="cite">${h(t.product.how)}</span>` : ''}`).join('<br>')}</dd>
  </dl>
</header>
<main>
${renderAttention(results)}
${hasRules ? renderSummary(results) : ''}
${hasRules ? renderNoVerdict(results) : ''}
${renderExpected(results)}
${renderChanges(results)}
${renderLoad(results.load)}
${renderRegressions(results.regressions)}
${hasRules ? renderRuleTable(results.rules) : ''}
</main>
${hasRules ? `<script>${SCRIPT}</script>` : ''}
${assets.body}
</body>
</html>
`;
}

/** Stays at the top while the reader scrolls: the verdict, the counts, and links to what failed. */
function renderStickySummary(results: RunResults): string {
  const { summary } = results;
  const failed = results.rules.filter((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR').length;
  const breached = results.load.filter((s) => s.error || s.thresholds.some((t) => !t.ok)).length;
  const counts = OUTCOME_ORDER.map((o) => [o, summary.byOutcome[o] ?? 0] as const)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `<span class="badge ${o}">${o} ${n}</span>`)
    .join(' ');
  const links = [
    `<a href="#attention">${failed + breached ? `what failed (${failed ? `${failed} rule${failed === 1 ? '' : 's'}` : ''}${failed && breached ? ', ' : ''}${breached ? `${breached} scenario${breached === 1 ? '' : 's'}` : ''})` : 'nothing failed'}</a>`,
    results.rules.length ? '<a href="#summary">summary</a>' : '',
    results.load.length ? '<a href="#load">load</a>' : '',
    results.rules.length ? '<a href="#rules">all rules</a>' : '',
    '<a href="#run">run</a>',
  ].filter(Boolean);
  return `<nav class="sticky" data-testid="sticky-summary"><span class="verdict-short ${summary.exitCode === 0 ? 'ok' : 'bad'}">${summary.exitCode === 0 ? 'PASSED' : 'FAILED'}</span>${counts ? ` <span>${counts}</span>` : ''}${results.load.length ? ` <span>${results.load.length} load scenario${results.load.length === 1 ? '' : 's'}${breached ? `, ${breached} breached or without figures` : ''}</span>` : ''} ${links.join(' · ')}</nav>`;
}

/** First on the page: every failed rule and every breached load scenario, or a line saying there are none. */
function renderAttention(results: RunResults): string {
  const bad = results.rules.filter((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR');
  const breaches = results.load.map((s, i) => [s, i] as const).filter(([s]) => s.error || s.thresholds.some((t) => !t.ok));
  const nv = results.summary.noVerdict;
  // A run can fail with no rule failing: too many rules went without a verdict.
  const skipShare = nv?.exceeded
    ? `<article class="breach" data-testid="skip-share-exceeded"><h3><span class="badge FAIL">TOO MANY SKIP</span> ${nv.skipped} of ${nv.counted} rules (${percent(nv.share, nv.maxSkipShare)}) got no verdict, above --max-skip-share ${nv.maxSkipShare}</h3><a href="#no-verdict">why, by reason</a></article>`
    : '';
  if (bad.length === 0 && breaches.length === 0 && !skipShare) {
    const what = [results.rules.length ? 'no rule failed or errored' : '', results.load.length ? 'no load threshold was breached' : ''].filter(Boolean).join('; ');
    return `<section id="attention"><h2>What failed</h2><p class="nothing" data-testid="nothing-failed">Nothing: ${what}.</p></section>`;
  }
  return `<section id="attention"><h2>What failed</h2>${skipShare}
  ${breaches.map(([s, i]) => renderBreach(s, i)).join('')}
  <div id="failures">${bad.map(renderFailure).join('')}</div></section>`;
}

function renderBreach(s: LoadScenarioResult, index: number): string {
  const lines = [
    ...(s.error ? [`no figures: ${h(s.error)}`] : s.thresholds.filter((t) => !t.ok).map((t) => `${h(t.name)} was ${t.actual}, above its limit ${t.limit}`)),
    // Why it lost what it lost: each stream's end, and who ran out of CPU.
    ...lossLines(s).map(h),
  ];
  return `<article class="breach" data-testid="breach-${h(s.scenario)}"><h3><span class="badge FAIL">${s.error ? 'ERROR' : 'BREACHED'}</span> load scenario ${h(s.scenario)} (${h(s.engine)})</h3><ul>${lines.map((l) => `<li>${l}</li>`).join('')}</ul><a href="#${loadAnchor(index)}">its figures and charts</a></article>`;
}

function loadAnchor(index: number): string {
  return `scenario-${index}`;
}

const OUTCOME_ORDER = ['FAIL', 'ERROR', 'INTERRUPTED', 'PASS', 'SKIP', 'WAIVED', 'EXPECTED'] as const;

function renderSummary(results: RunResults): string {
  const systems = [...new Set(results.rules.map((r) => r.system))];
  const cards = systems.map((system) => {
    const rules = results.rules.filter((r) => r.system === system);
    const counts = OUTCOME_ORDER.map((o) => [o, rules.filter((r) => r.outcome === o).length] as const).filter(([, n]) => n > 0);
    const levels = [...new Set(rules.map((r) => r.level))].map((l) => {
      const of = rules.filter((r) => r.level === l);
      return `${h(l)}: ${of.filter((r) => r.outcome === 'PASS').length}/${of.length} pass`;
    });
    const bad = rules.filter((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR');
    const links = bad.length
      ? `<ul class="bad">${bad
          .slice(0, 12)
          .map((r) => `<li><a href="#detail-${h(r.id)}" data-testid="summary-link-${h(r.id)}"><span class="badge ${h(r.outcome)}">${h(r.outcome)}</span> ${h(r.id)}</a></li>`)
          .join('')}${bad.length > 12 ? `<li><a href="#failures">and ${bad.length - 12} more</a></li>` : ''}</ul>`
      : '';
    return `<section class="card" data-testid="summary-${h(system)}"><h3>${h(system)}</h3>
      <p class="counts">${counts.map(([o, n]) => `<span class="badge ${o}">${o} ${n}</span>`).join(' ')}</p>
      <p class="levels">${levels.join(' · ')}</p>${links}</section>`;
  });
  return `<section id="summary"><h2>Summary</h2><div class="cards">${cards.join('')}</div></section>`;
}

/** Which rules got no verdict and why, grouped by reason: what a PASSED run did not check. */
function renderNoVerdict(results: RunResults): string {
  const nv = results.summary.noVerdict;
  if (!nv) return '';
  const note = upstreamCountingNote(results.run.profile, nv.notCounted);
  const limit =
    nv.maxSkipShare === undefined
      ? ''
      : ` <span class="badge ${nv.exceeded ? 'FAIL' : 'PASS'}">${nv.exceeded ? 'above' : 'within'} --max-skip-share ${nv.maxSkipShare}</span>`;
  if (nv.skipped === 0) {
    return `<section id="no-verdict" data-testid="no-verdict"><h2>No verdict</h2><p>Every rule got a verdict (${nv.counted} counted; ${h(note)}).${limit}</p></section>`;
  }
  const link = (id: string) => `<a href="#rule-${h(id)}"><code>${h(id)}</code></a>`;
  const rows = (results.summary.skipReasons ?? []).map((g) => {
    const ids = g.rules.map(link).join(', ');
    const which = g.count <= IDS_SHOWN_UP_TO ? ids : `<details><summary>${g.count} rules</summary>${ids}</details>`;
    return `<tr data-testid="skip-reason"><td class="count">${g.count}</td><td>${h(g.reason)}</td><td>${which}</td></tr>`;
  });
  return `<section id="no-verdict" data-testid="no-verdict"><h2>No verdict</h2>
  <p>${nv.skipped} of ${nv.counted} rules (${percent(nv.share, nv.maxSkipShare)}) were SKIP: what this run did not check, by reason (${h(note)}).${limit}</p>
  <table class="skip-reasons"><thead><tr><th>rules</th><th>reason</th><th>which</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

function renderRuleTable(rules: RuleResult[]): string {
  const groups = new Map<string, RuleResult[]>();
  for (const r of rules) {
    const key = `${r.system} · ${r.sources[0]?.section ?? 'other'}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const opts = (values: string[]) => values.map((v) => `<option value="${h(v)}">${h(v)}</option>`).join('');
  const systems = [...new Set(rules.map((r) => r.system))];
  const body = [...groups.entries()]
    .map(
      ([group, rs]) =>
        `<tbody class="group"><tr class="group-head"><th colspan="5">${h(group)}</th></tr>${rs.map(renderRuleRow).join('')}</tbody>`,
    )
    .join('');
  return `<section id="rules"><h2>Rules</h2>
  <div class="filters">
    <label>System <select id="f-system"><option value="">all</option>${opts(systems)}</select></label>
    <label>Outcome <select id="f-outcome"><option value="">all</option>${opts([...OUTCOME_ORDER])}</select></label>
    <label>Level <select id="f-level"><option value="">all</option>${opts(['MUST', 'SHOULD', 'MAY', 'UPSTREAM'])}</select></label>
    <label>Search <input id="f-search" type="search" placeholder="rule id, title or spec text"></label>
    <span id="f-count"></span>
  </div>
  <table class="rules"><thead><tr><th>Outcome</th><th>Rule</th><th>Level</th><th>Title</th><th>Spec</th></tr></thead>${body}</table></section>`;
}

function renderRuleRow(r: RuleResult): string {
  const cite = r.sources
    .map((s) => `<div class="cite"><span class="where">${h(s.file)} § ${h(s.section)}</span> <q>${h(s.quote)}</q></div>`)
    .join('');
  const link = r.outcome === 'FAIL' || r.outcome === 'ERROR' || r.outcome === 'EXPECTED' ? `<a href="#detail-${h(r.id)}">${h(r.id)}</a>` : h(r.id);
  const search = `${r.id} ${r.title} ${r.sources.map((s) => s.quote).join(' ')}`.toLowerCase();
  return `<tr id="rule-${h(r.id)}" class="rule" data-system="${h(r.system)}" data-outcome="${h(r.outcome)}" data-level="${h(r.level)}" data-search="${h(search)}">
    <td><span class="badge ${h(r.outcome)}">${h(r.outcome)}</span></td>
    <td class="id">${link} <a class="self" href="#rule-${h(r.id)}" title="link to this rule">¶</a></td>
    <td>${h(r.level)}</td>
    <td>${h(r.title)}${r.outcome === 'SKIP' && r.message ? `<div class="why">${h(r.message)}</div>` : ''}</td>
    <td class="cite-cell">${cite}${r.upstream ? `<div class="cite upstream">upstream: ${h(r.upstream.product)} ${h(r.upstream.source)}: ${h(r.upstream.note)}</div>` : ''}${(r.ruleNotes ?? []).map((n) => `<div class="cite note">${h(n)}</div>`).join('')}</td>
  </tr>`;
}

function renderFailure(r: RuleResult): string {
  const words = failureInWords(r);
  const exchanges = r.exchanges
    .map(
      (e, i) => `<details class="exchange"><summary>${i + 1}. ${h(e.method)} ${h(e.url)} → ${e.status ?? h(e.error ?? 'no answer')} (${e.durationMs} ms)</summary>
<pre>${h(`${e.method} ${e.url}\n${headerLines(e.requestHeaders)}`)}</pre>${renderBody(e.requestBody, 'request body')}
<pre>${h(e.status !== undefined ? `HTTP ${e.status}\n${headerLines(e.responseHeaders ?? {})}` : (e.error ?? ''))}</pre>${e.status !== undefined ? renderBody(e.responseBody, 'response body') : ''}</details>`,
    )
    .join('');
  const shown = (text: string, asValue: boolean) => (asValue ? `<pre>${h(text)}</pre>` : `<p>${h(text)}</p>`);
  return `<article class="failure" id="detail-${h(r.id)}" data-testid="failure-${h(r.id)}">
  <h3><span class="badge ${h(r.outcome)}">${h(r.outcome)}</span> ${h(r.id)}</h3>
  <p class="title">${h(r.title)} <span class="level">(${h(r.level)})</span></p>
  <dl>
    <dt>The spec says</dt><dd>${r.sources.map((s) => `<q>${h(s.quote)}</q> <span class="where">(${h(s.file)} § ${h(s.section)})</span>`).join('<br>')}</dd>
    ${words ? `<dt>Expected</dt><dd data-testid="expected-words">${shown(words.expected, words.areValues)}</dd><dt>Came</dt><dd data-testid="came-words">${shown(words.came, words.areValues)}</dd>` : ''}
    <dt>${r.outcome === 'ERROR' ? 'Why no verdict' : words ? 'Message' : 'What came'}</dt><dd><pre class="message">${h(r.message ?? '')}</pre></dd>
    ${r.counterexample ? `<dt>Counterexample</dt><dd><pre>${h(r.counterexample.value)}</pre>seed ${r.counterexample.seed}, path <code>${h(r.counterexample.path)}</code>, after ${r.counterexample.numRuns} runs and ${r.counterexample.shrinks} shrinks</dd>` : ''}
    ${r.replay ? `<dt>Replay</dt><dd><code class="replay" data-testid="replay-${h(r.id)}">${h(r.replay)}</code> <button class="copy" type="button" data-copy="${h(r.replay)}">copy</button></dd>` : ''}
    ${r.faults.length ? `<dt>Faults that break it</dt><dd>${r.faults.map(h).join(', ')}</dd>` : ''}
  </dl>
  <h4>HTTP exchanges (${r.exchanges.length}${r.droppedExchanges ? `, ${r.droppedExchanges} earlier ones not kept` : ''}; secrets redacted)</h4>
  ${exchanges || '<p>None recorded.</p>'}
</article>`;
}

/** Bodies longer than this are folded, with their size on the fold: one job body can be 28,000 characters. */
const BODY_SHOWN_UP_TO = 1_500;

function renderBody(body: string | undefined, what: string): string {
  if (!body) return '';
  if (body.length <= BODY_SHOWN_UP_TO) return `<pre>${h(body)}</pre>`;
  const bytes = Buffer.byteLength(body);
  return `<details class="body" data-testid="folded-body"><summary>${what}: ${body.length.toLocaleString('en')} characters (${formatBytes(bytes)}), folded: open to read</summary><pre>${h(body)}</pre></details>`;
}

function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Listed spec deviations of the products named with --expect, apart from the failures: they do not fail the run. */
function renderExpected(results: RunResults): string {
  const expected = results.rules.filter((r) => r.outcome === 'EXPECTED');
  const findings = results.expectationFindings ?? [];
  const applied = results.expectationsApplied ?? [];
  if (expected.length === 0 && findings.length === 0 && applied.length === 0) return '';
  const rows = expected
    .map(
      (r) => `<tr id="detail-${h(r.id)}" data-testid="expected-${h(r.id)}"><td class="id">${h(r.id)}</td><td>${h(r.expectation?.product ?? '')}</td>
      <td>${h(r.expectation?.behavior ?? '')}<div class="cite">${h(r.expectation?.source ?? '')}; versions ${h(r.expectation?.versions ?? '')}${r.expectation?.range ? ` (range <code>${h(r.expectation.range)}</code>)` : ''}</div></td>
      <td>${r.sources.map((s) => `<q>${h(s.quote)}</q>`).join('<br>')}</td></tr>`,
    )
    .join('');
  return `<section id="expected"><h2>Expected deviations (${expected.length})</h2>
  <p>Rules the product is known to break: the spec states one thing, the product's source another. They are not counted as failures.</p>
  ${expected.length ? `<table class="rules"><thead><tr><th>Rule</th><th>Product</th><th>What it does instead</th><th>The spec says</th></tr></thead><tbody>${rows}</tbody></table>` : ''}
  ${applied.length ? `<h3>Which listed deviations applied</h3><ul data-testid="expectations-applied">${applied.map((a) => `<li>${a.applies ? 'applied' : 'not applied'}: ${h(a.product)} ${h(a.rule)}: ${h(a.why)}</li>`).join('')}</ul>` : ''}
  ${findings.length ? `<h3>Expectation findings</h3><ul data-testid="expectation-findings">${findings.map((f) => `<li>${h(f.message)}</li>`).join('')}</ul>` : ''}</section>`;
}

function renderChanges(results: RunResults): string {
  const parts: string[] = [];
  if (results.baselineDiff) {
    parts.push(
      results.baselineDiff.length === 0
        ? '<p>No rule changed outcome since the baseline.</p>'
        : `<table class="rules" data-testid="baseline-diff"><thead><tr><th>Rule</th><th>Before</th><th>Now</th></tr></thead><tbody>${results.baselineDiff
            .map((d) => `<tr><td class="id"><a href="#rule-${h(d.rule)}">${h(d.rule)}</a></td><td><span class="badge ${h(d.before)}">${h(d.before)}</span></td><td><span class="badge ${h(d.after)}">${h(d.after)}</span></td></tr>`)
            .join('')}</tbody></table>`,
    );
  }
  if (results.waiverFindings?.length) parts.push(`<h3>Waivers</h3><ul data-testid="waiver-findings">${results.waiverFindings.map((f) => `<li>${h(f.message)}</li>`).join('')}</ul>`);
  return parts.length ? `<section id="changes"><h2>Changed since the baseline</h2>${parts.join('')}</section>` : '';
}

function renderRegressions(regressions: RunResults['regressions']): string {
  if (!regressions) return '';
  if (regressions.length === 0) return '<section id="regressions"><h2>Against the baseline</h2><p>No load regression.</p></section>';
  const rows = regressions
    .map((r) => `<tr><td>${h(r.scenario)}</td><td>${h(r.engine)}</td><td>${h(r.metric)}</td><td>${r.baseline}</td><td>${r.current}</td><td>${Math.round(r.change * 100)}% worse</td></tr>`)
    .join('');
  return `<section id="regressions"><h2>Against the baseline</h2><table class="load"><thead><tr><th>Scenario</th><th>Engine</th><th>Metric</th><th>Baseline</th><th>Now</th><th>Change</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

function renderLoad(load: LoadScenarioResult[]): string {
  if (load.length === 0) return '';
  const rows = load
    .map((s, index) => {
      const verdict = s.thresholds.length === 0 ? '—' : s.thresholds.every((t) => t.ok) ? '<span class="badge PASS">met</span>' : '<span class="badge FAIL">breached</span>';
      const name = `<td><a href="#${loadAnchor(index)}">${h(s.scenario)}</a></td><td>${h(s.engine)} (${h(s.model)}${s.arrivalPrecision ? `, ${h(s.arrivalPrecision)} timing` : ''})</td><td class="num">${s.targetRate ?? '—'}</td>`;
      // A row with no figures (k6 wrote no summary) says why instead of showing zeros as if measured.
      if (s.error) return `<tr data-testid="load-row">${name}<td colspan="9" class="load-error"><strong>error:</strong> ${h(s.error)}</td><td>${verdict}</td></tr>`;
      // k6 rows count HTTP requests; their iterations (several requests each for the OIDC flow) are shown beside them.
      const requests = s.iterations !== undefined && s.iterations !== s.requests ? `${s.requests} <small>(${s.iterations} iterations)</small>` : `${s.requests}`;
      const errors = `${s.errors}${s.errorKinds ? `<br><small>${Object.entries(s.errorKinds).map(([k, n]) => `${n} ${h(k)}`).join('<br>')}</small>` : ''}`;
      const l = s.latencyMs;
      return `<tr data-testid="load-row">${name}<td class="num">${requests}</td><td class="num">${errors}</td><td class="num">${s.dropped}</td><td class="num">${s.throughput}</td>
      <td class="num">${l.p50}</td><td class="num">${l.p90}</td><td class="num">${l.p99}</td><td class="num">${l.p999}</td><td class="num">${l.max}</td><td>${verdict}</td></tr>`;
    })
    .join('');
  const thresholds = load
    .flatMap((s) => s.thresholds.map((t) => `<li>${h(s.scenario)} (${h(s.engine)}): ${h(t.name)} ${t.actual} (limit ${t.limit}) ${t.ok ? 'met' : '<strong>breached</strong>'}</li>`))
    .join('');
  const notes = load.map((s) => (s.stoppedEarly ? `<li>${h(s.scenario)} (${h(s.engine)}): ${h(s.stoppedEarly)}</li>` : '')).join('');
  const losses = load
    .map((s) => {
      const lines = lossLines(s);
      return lines.length ? `<li data-testid="load-losses">${h(s.scenario)} (${h(s.engine)}): lost ${lostWords(s)}<ul>${lines.map((l) => `<li>${h(l)}</li>`).join('')}</ul></li>` : '';
    })
    .join('');
  return `<section id="load"><h2>Load</h2>
  <table class="load"><thead><tr><th>Scenario</th><th>Engine</th><th class="num">Rate/s</th><th class="num">Requests</th><th class="num">Errors</th><th class="num">Dropped</th><th class="num">Throughput/s</th><th class="num">p50 ms</th><th class="num">p90 ms</th><th class="num">p99 ms</th><th class="num">p99.9 ms</th><th class="num">max ms</th><th>Thresholds</th></tr></thead><tbody>${rows}</tbody></table>
  ${thresholds ? `<ul class="thresholds">${thresholds}</ul>` : ''}${notes ? `<ul class="stopped-early">${notes}</ul>` : ''}${losses ? `<h3>What was lost, and why</h3><ul class="losses">${losses}</ul>` : ''}
  ${load.map(renderScenarioCharts).join('')}</section>`;
}

/** What a row lost, in words: streams ended early, deliveries missed, arrivals dropped, errors. */
function lostWords(s: LoadScenarioResult): string {
  const parts = [
    s.streams?.endedEarly ? `${s.streams.endedEarly} of ${s.streams.subscribers} streams ended early` : '',
    s.streams?.missed ? `${s.streams.missed} deliveries missed` : '',
    s.streams?.notStarted ? `${s.streams.notStarted} registrations not started` : '',
    !s.streams && s.dropped ? `${s.dropped} arrivals dropped` : '',
    !s.streams && s.errors ? `${s.errors} errors` : '',
  ].filter(Boolean);
  return parts.join(', ') || 'nothing';
}

function renderScenarioCharts(s: LoadScenarioResult, index: number): string {
  const specs = scenarioChartSpecs(s, index);
  const why = s.error
    ? 'No charts: the scenario has no figures.'
    : s.timeline.length === 0
      ? `No per-second series: ${h(s.engine)} gives the run's totals only.`
      : '';
  return `<div class="scenario-charts" id="${loadAnchor(index)}"><h3>${h(s.scenario)} (${h(s.engine)}): p50 ${s.latencyMs.p50} ms, p99 ${s.latencyMs.p99} ms, max ${s.latencyMs.max} ms</h3>${why ? `<p class="why">${why}</p>` : ''}<div class="charts">${specs.map(chartFigure).join('')}</div></div>`;
}

const SCRIPT = `
(function(){
  var f={system:document.getElementById('f-system'),outcome:document.getElementById('f-outcome'),level:document.getElementById('f-level'),search:document.getElementById('f-search')};
  var count=document.getElementById('f-count');
  function apply(){
    var q=(f.search.value||'').toLowerCase().trim(),shown=0,total=0;
    document.querySelectorAll('tr.rule').forEach(function(tr){
      total++;
      var ok=(!f.system.value||tr.dataset.system===f.system.value)&&(!f.outcome.value||tr.dataset.outcome===f.outcome.value)&&(!f.level.value||tr.dataset.level===f.level.value)&&(!q||tr.dataset.search.indexOf(q)>=0);
      tr.classList.toggle('hidden',!ok); if(ok) shown++;
    });
    document.querySelectorAll('tbody.group').forEach(function(tb){
      tb.classList.toggle('hidden',!tb.querySelector('tr.rule:not(.hidden)'));
    });
    count.textContent=shown+' of '+total+' rules';
  }
  ['change','input'].forEach(function(ev){Object.keys(f).forEach(function(k){f[k].addEventListener(ev,apply);});});
  document.querySelectorAll('button.copy').forEach(function(b){b.addEventListener('click',function(){
    if(navigator.clipboard){navigator.clipboard.writeText(b.dataset.copy).then(function(){b.textContent='copied';},function(){});}
  });});
  function openTarget(){var id=decodeURIComponent(location.hash.slice(1));var el=id&&document.getElementById(id);if(el&&el.tagName==='DETAILS'){el.open=true;}}
  window.addEventListener('hashchange',openTarget);openTarget();apply();
})();
`;
