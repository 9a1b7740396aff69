import type { LoadScenarioResult, RuleResult, RunResults } from './results-model.ts';
import { escapeMarkup as h } from './xml-escape.ts';
import { IDS_SHOWN_UP_TO, percent, upstreamCountingNote } from './skip-summary.ts';

/**
 * One self-contained HTML file: no external scripts, styles, fonts or images, so it opens from a
 * CI artifact with no network.
 */
export function renderHtml(results: RunResults): string {
  const { summary, run } = results;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stackproof report: ${h(summary.verdict)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>stackproof report</h1>
  <p class="verdict ${summary.exitCode === 0 ? 'ok' : 'bad'}" data-testid="verdict">${h(summary.verdict)}</p>
  ${summary.interrupted ? `<p data-testid="interrupted">Stopped by ${h(summary.interrupted.signal)} before its end: the rules whose tests were running are INTERRUPTED (no verdict), and ${summary.interrupted.notRun.length} rule(s) did not run${summary.interrupted.notRun.length ? `: <span class="cite">${summary.interrupted.notRun.map(h).join(', ')}</span>` : ''}.</p>` : ''}
  <dl class="run">
    <dt>Run</dt><dd>${h(run.id)}, ${h(run.startedAt)}, ${(run.durationMs / 1000).toFixed(1)} s</dd>
    <dt>Command</dt><dd><code>${h(run.command)}</code></dd>
    <dt>Profile</dt><dd>${h(run.profile)}; seed ${run.seed}; ${run.runs} runs per property</dd>
    ${run.faults.length ? `<dt>Faults on</dt><dd>${run.faults.map(h).join(', ')}</dd>` : ''}
    ${run.referenceBehavior && run.referenceBehavior !== 'spec' ? `<dt>Reference</dt><dd>behaviour ${h(run.referenceBehavior)}: reproduces the products' listed spec deviations</dd>` : ''}
    ${run.expect?.length ? `<dt>Expected deviations of</dt><dd>${run.expect.map(h).join(', ')} (expectation files shipped with stackproof)</dd>` : ''}
    ${run.runPrefix ? `<dt>Run prefix</dt><dd><code>${h(run.runPrefix)}</code>: every name the run gave to what it made on the targets</dd>` : ''}
    ${run.provisioning?.length ? `<dt>Fixtures</dt><dd data-testid="provisioning">${run.provisioning.map(h).join('<br>')}</dd>` : ''}
    <dt>Targets</dt><dd>${results.targets.map((t) => `${h(t.system)}: <code>${h(t.url)}</code> (${h(t.dialect)}${t.embedded ? ', embedded reference' : ''})${t.product ? ` <span data-testid="product-${h(t.system)}">${h(t.product.name)} ${h(t.product.version ?? '(version unknown)')}</span> <span class="cite">${h(t.product.how)}</span>` : ''}`).join('<br>')}</dd>
  </dl>
</header>
<main>
${renderNoVerdict(results)}
${renderSummary(results)}
${renderRuleTable(results.rules)}
${renderFailures(results.rules)}
${renderExpected(results)}
${renderChanges(results)}
${renderLoad(results.load)}
${renderRegressions(results.regressions)}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
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
    <td>${cite}${r.upstream ? `<div class="cite upstream">upstream: ${h(r.upstream.product)} ${h(r.upstream.source)}: ${h(r.upstream.note)}</div>` : ''}${(r.ruleNotes ?? []).map((n) => `<div class="cite note">${h(n)}</div>`).join('')}</td>
  </tr>`;
}

function renderFailures(rules: RuleResult[]): string {
  const bad = rules.filter((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR');
  if (bad.length === 0) return `<section id="failures"><h2>Failures</h2><p>None.</p></section>`;
  return `<section id="failures"><h2>Failures</h2>${bad.map(renderFailure).join('')}</section>`;
}

function renderFailure(r: RuleResult): string {
  const exchanges = r.exchanges
    .map(
      (e, i) => `<details class="exchange"><summary>${i + 1}. ${h(e.method)} ${h(e.url)} → ${e.status ?? h(e.error ?? 'no answer')} (${e.durationMs} ms)</summary>
<pre>${h(`${e.method} ${e.url}\n${headerLines(e.requestHeaders)}${e.requestBody ? `\n\n${e.requestBody}` : ''}`)}</pre>
<pre>${h(e.status !== undefined ? `HTTP ${e.status}\n${headerLines(e.responseHeaders ?? {})}${e.responseBody ? `\n\n${e.responseBody}` : ''}` : (e.error ?? ''))}</pre></details>`,
    )
    .join('');
  return `<article class="failure" id="detail-${h(r.id)}" data-testid="failure-${h(r.id)}">
  <h3><span class="badge ${h(r.outcome)}">${h(r.outcome)}</span> ${h(r.id)}</h3>
  <p class="title">${h(r.title)} <span class="level">(${h(r.level)})</span></p>
  <dl>
    <dt>Expectation</dt><dd>${r.sources.map((s) => `<q>${h(s.quote)}</q> <span class="where">(${h(s.file)} § ${h(s.section)})</span>`).join('<br>')}</dd>
    <dt>Observed</dt><dd><pre class="message">${h(r.message ?? '')}</pre></dd>
    ${r.expected !== undefined ? `<dt>Expected value</dt><dd><pre>${h(r.expected)}</pre></dd>` : ''}
    ${r.actual !== undefined ? `<dt>Actual value</dt><dd><pre>${h(r.actual)}</pre></dd>` : ''}
    ${r.counterexample ? `<dt>Counterexample</dt><dd><pre>${h(r.counterexample.value)}</pre>seed ${r.counterexample.seed}, path <code>${h(r.counterexample.path)}</code>, after ${r.counterexample.numRuns} runs and ${r.counterexample.shrinks} shrinks</dd>` : ''}
    ${r.replay ? `<dt>Replay</dt><dd><code class="replay" data-testid="replay-${h(r.id)}">${h(r.replay)}</code> <button class="copy" type="button" data-copy="${h(r.replay)}">copy</button></dd>` : ''}
    ${r.faults.length ? `<dt>Faults that break it</dt><dd>${r.faults.map(h).join(', ')}</dd>` : ''}
  </dl>
  <h4>HTTP exchanges (${r.exchanges.length}${r.droppedExchanges ? `, ${r.droppedExchanges} earlier ones not kept` : ''}; secrets redacted)</h4>
  ${exchanges || '<p>None recorded.</p>'}
</article>`;
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
    .map((s) => {
      const verdict = s.thresholds.length === 0 ? '—' : s.thresholds.every((t) => t.ok) ? '<span class="badge PASS">met</span>' : '<span class="badge FAIL">breached</span>';
      // A row with no figures (k6 wrote no summary) says why instead of showing zeros as if measured.
      if (s.error) return `<tr><td>${h(s.scenario)}</td><td>${h(s.engine)} (${h(s.model)})</td><td>${s.targetRate ?? '—'}</td><td colspan="8" class="load-error"><strong>error:</strong> ${h(s.error)}</td><td>${verdict}</td></tr>`;
      // k6 rows count HTTP requests; their iterations (several requests each for the OIDC flow) are shown beside them.
      const requests = s.iterations !== undefined && s.iterations !== s.requests ? `${s.requests} <small>(${s.iterations} iterations)</small>` : `${s.requests}`;
      return `<tr><td>${h(s.scenario)}</td><td>${h(s.engine)} (${h(s.model)}${s.arrivalPrecision ? `, ${h(s.arrivalPrecision)} timing` : ''})</td><td>${s.targetRate ?? '—'}</td><td>${requests}</td><td>${s.errors}${s.errorKinds ? `<br><small>${Object.entries(s.errorKinds).map(([k, n]) => `${n} ${h(k)}`).join('<br>')}</small>` : ''}</td><td>${s.dropped}</td><td>${s.throughput}</td>
      <td>${s.latencyMs.p50}</td><td>${s.latencyMs.p90}</td><td>${s.latencyMs.p99}</td><td>${s.latencyMs.p999}</td><td>${s.latencyMs.max}</td><td>${verdict}</td></tr>`;
    })
    .join('');
  const charts = load.map(renderTimeline).join('');
  const thresholds = load
    .flatMap((s) => s.thresholds.map((t) => `<li>${h(s.scenario)} (${h(s.engine)}): ${h(t.name)} ${t.actual} (limit ${t.limit}) ${t.ok ? 'ok' : '<strong>breached</strong>'}</li>`))
    .join('');
  return `<section id="load"><h2>Load</h2>
  <table class="load"><thead><tr><th>Scenario</th><th>Engine</th><th>Rate/s</th><th>Requests</th><th>Errors</th><th>Dropped</th><th>Throughput/s</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th><th>Thresholds</th></tr></thead><tbody>${rows}</tbody></table>
  ${thresholds ? `<ul class="thresholds">${thresholds}</ul>` : ''}
  <div class="charts">${charts}</div></section>`;
}

/** Latency (p50, p99) and throughput per second, as inline SVG. */
function renderTimeline(s: LoadScenarioResult): string {
  const w = 360;
  const ht = 120;
  const pts = s.timeline;
  if (pts.length === 0) return '';
  const maxLat = Math.max(1, ...pts.map((p) => p.p99));
  const maxReq = Math.max(1, ...pts.map((p) => p.requests));
  const x = (i: number) => (pts.length === 1 ? w / 2 : (i / (pts.length - 1)) * (w - 20) + 10);
  const y = (v: number, max: number) => ht - 10 - (v / max) * (ht - 20);
  const line = (key: 'p50' | 'p99') => pts.map((p, i) => `${x(i).toFixed(1)},${y(p[key], maxLat).toFixed(1)}`).join(' ');
  const bars = pts
    .map((p, i) => `<rect x="${(x(i) - 3).toFixed(1)}" y="${y(p.requests, maxReq).toFixed(1)}" width="6" height="${(ht - 10 - y(p.requests, maxReq)).toFixed(1)}" class="bar"><title>${p.requests} requests in second ${p.t}</title></rect>`)
    .join('');
  return `<figure class="chart"><figcaption>${h(s.scenario)}: p50 and p99 latency (max ${maxLat} ms) and requests per second</figcaption>
  <svg viewBox="0 0 ${w} ${ht}" width="${w}" height="${ht}" role="img" aria-label="latency over time for ${h(s.scenario)}">${bars}
  <polyline points="${line('p50')}" class="p50"/><polyline points="${line('p99')}" class="p99"/></svg></figure>`;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header,main{max-width:1200px;margin:0 auto;padding:12px 20px}
h1{margin:8px 0}h2{border-bottom:1px solid #d5d9e0;padding-bottom:4px;margin-top:28px}
.verdict{font-size:18px;font-weight:600;padding:8px 12px;border-radius:6px;display:inline-block}
.verdict.ok{background:#dff3e4;color:#17612b}.verdict.bad{background:#fbe2e2;color:#8a1c1c}
dl.run{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}dl.run dt{font-weight:600}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{background:#fff;border:1px solid #d5d9e0;border-radius:6px;padding:8px 14px;min-width:220px}
.card h3{margin:4px 0}.levels{color:#555;font-size:12px}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600;background:#e3e6eb}
.badge.PASS{background:#dff3e4;color:#17612b}.badge.FAIL{background:#fbe2e2;color:#8a1c1c}.badge.ERROR{background:#fde9cf;color:#7a4a00}
.badge.SKIP{background:#e8eaf0;color:#4a5163}.badge.WAIVED{background:#e7e0f7;color:#4b2f87}.badge.EXPECTED{background:#dcecf7;color:#1d4f73}.badge.INTERRUPTED{background:#f3ecd2;color:#5e4b00}
.cite.note{color:#2d5a3d}
.filters{display:flex;gap:14px;flex-wrap:wrap;align-items:center;margin:8px 0}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #e6e8ec;padding:5px 8px;text-align:left;vertical-align:top}
tr.group-head th{background:#eef0f4}td.id{font-family:ui-monospace,monospace;white-space:nowrap}
.cite{font-size:12px;color:#4a5163}.cite .where{color:#777}.why{font-size:12px;color:#777}
a.self{color:#aaa;text-decoration:none}
article.failure{background:#fff;border:1px solid #e2c4c4;border-radius:6px;padding:8px 16px;margin:12px 0}
article.failure dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px}article.failure dt{font-weight:600}
pre{white-space:pre-wrap;word-break:break-word;background:#f3f4f6;padding:6px 8px;border-radius:4px;margin:2px 0}
code.replay{background:#1d2330;color:#e6e8ec;padding:3px 6px;border-radius:4px;display:inline-block}
details.exchange summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:12px}
.chart{display:inline-block;margin:8px;background:#fff;border:1px solid #d5d9e0;border-radius:6px;padding:6px}
.chart .bar{fill:#cfd8e8}.chart polyline{fill:none;stroke-width:2}.chart .p50{stroke:#2a7de1}.chart .p99{stroke:#d9480f}
.hidden{display:none}
table.skip-reasons td.count{text-align:right;font-weight:600;width:4em}
ul.bad{margin:6px 0 0;padding-left:16px;font-size:12px}ul.bad a{text-decoration:none}
`;

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
