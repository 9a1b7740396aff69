import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { RunResults } from '../src/report/results-model.ts';
import { ROOT, runCli } from './support/run-cli.ts';

// The functions given to page.evaluate run in the page; the project's tsconfig has no DOM lib (it
// would type Node's globals as the browser's), so what they use of the DOM is declared here.
interface HTMLElement {
  getBoundingClientRect(): { left: number; top: number; right: number; width: number };
  tagName: string;
  id: string;
  textContent: string | null;
  querySelectorAll(selector: string): ArrayLike<HTMLElement>;
}
declare const document: { documentElement: { scrollWidth: number }; querySelectorAll(selector: string): ArrayLike<HTMLElement> };
declare const window: unknown;

const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of each page, kept as test artifacts (reports/ is what CI keeps). */
const SHOTS = join(ROOT, 'reports', 'screenshots');
const WIDTH = 1400;

/**
 * The three pages in a real browser (Debian's chromium, driven by playwright-core), offline, at a
 * 1,400 px window: a conformance report with failures, a load-only report with a breached
 * threshold, and a history page over twelve runs. Each chart is hovered with the mouse and its
 * legend read: the values it shows are results.json's.
 */
describe('the reports in headless Chromium', () => {
  let browser: Browser;
  let conformDir: string;
  let loadDir: string;
  let historyFile: string;
  let conform: RunResults;
  let load: RunResults;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium (apt-get install chromium)`);
    mkdirSync(SHOTS, { recursive: true });
    conformDir = mkdtempSync(join(tmpdir(), 'stackproof-browser-'));
    const res = await runCli(['conform', '--systems', 'mesh', '--reference-fault', 'mesh.leaf-self-signed', '--reference-fault', 'mesh.authorize-empty-reason', '--runs', '3', '--reports-dir', conformDir]);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    conform = JSON.parse(readFileSync(join(conformDir, 'results.json'), 'utf8')) as RunResults;
    loadDir = mkdtempSync(join(tmpdir(), 'stackproof-browser-load-'));
    // A p99 limit of 1 µs cannot be met: the scenario is breached on any machine.
    const loaded = await runCli(['load', '--scenario', 'mesh-roots', '--engine', 'open,autocannon', '--duration', '3s', '--rate', '200', '--p99', '0.001', '--reports-dir', loadDir]);
    expect(loaded.code, loaded.stdout + loaded.stderr).toBe(4);
    load = JSON.parse(readFileSync(join(loadDir, 'results.json'), 'utf8')) as RunResults;
    historyFile = await writeHistory(conform, load);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 180_000);
  afterAll(async () => browser?.close());

  it('conformance report: failures first, a sticky summary, two clicks to a replay command, filters, nothing wider than the window', async () => {
    const page = await open(browser, join(conformDir, 'index.html'));
    await expect(page.getByTestId('verdict').textContent()).resolves.toMatch(/FAILED: \d+ pass, \d+ fail/);
    const summary = page.getByTestId('summary-mesh');
    await expect(summary.textContent()).resolves.toMatch(/FAIL \d+/);
    const top = async (selector: string) => (await page.locator(selector).first().boundingBox())!.y;
    expect(await top('#attention'), 'what failed comes before the summary').toBeLessThan(await top('#summary'));
    expect(await top('[data-testid="failure-mesh.leaf.chains-to-active-root"]'), 'a failure comes before the full rule table').toBeLessThan(await top('#rules'));
    await expectNoOverflow(page);

    // Click 1: the failing rule in the summary. Its details, with the replay command, are on screen.
    await page.getByTestId('summary-link-mesh.leaf.chains-to-active-root').click();
    const replay = page.getByTestId('replay-mesh.leaf.chains-to-active-root');
    await replay.waitFor({ state: 'visible' });
    expect(await replay.textContent()).toMatch(/^npx stackproof conform .*--rules mesh\.leaf\.chains-to-active-root/);
    const box = await replay.boundingBox();
    expect(box && box.y >= 0 && box.y < 900, 'the replay command is in the viewport after one click').toBe(true);
    // Click 2: copy it.
    await page.getByTestId('failure-mesh.leaf.chains-to-active-root').getByRole('button', { name: 'copy' }).click();
    // The summary bar stays on screen, scrolled down to the failure.
    const sticky = await page.getByTestId('sticky-summary').boundingBox();
    expect(sticky?.y, 'the summary bar sticks to the top').toBe(0);
    await expect(page.getByTestId('sticky-summary').textContent()).resolves.toMatch(/FAILED.*FAIL \d+.*what failed/);

    // Every failure says what was expected and what came, in words, never a bare true or false.
    for (const failure of conform.rules.filter((r) => r.outcome === 'FAIL')) {
      const article = page.getByTestId(`failure-${failure.id}`);
      const text = (await article.textContent()) ?? '';
      const words = await article.getByTestId('expected-words').count();
      if (words) {
        expect(await article.getByTestId('expected-words').textContent()).not.toMatch(/^\s*(true|false)\s*$/);
        expect(await article.getByTestId('came-words').textContent()).not.toMatch(/^\s*(true|false)\s*$/);
      } else expect(text, `${failure.id} says what came`).toContain('What came');
    }

    // Filters and search.
    await page.selectOption('#f-outcome', 'FAIL');
    const visible = await page.locator('tr.rule:not(.hidden)').evaluateAll((rows) => rows.map((r) => `${r.id}:${r.getAttribute('data-outcome')}`));
    expect(visible).toEqual(expect.arrayContaining(['rule-mesh.authorize.reason:FAIL', 'rule-mesh.leaf.chains-to-active-root:FAIL']));
    for (const v of visible) expect(v, 'only FAIL rows are shown').toMatch(/:FAIL$/);
    await page.selectOption('#f-outcome', '');
    await page.fill('#f-search', 'serial');
    const searched = await page.locator('tr.rule:not(.hidden)').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-search') ?? ''));
    expect(searched.length).toBeGreaterThan(0);
    expect(searched.length, 'the search hides rules that do not mention it').toBeLessThan(await page.locator('tr.rule').count());
    for (const text of searched) expect(text).toContain('serial');
    await page.fill('#f-search', '');

    // The load smoke's charts, hovered: the legend shows results.json's numbers.
    await expectChartsMatch(page, conform.load);
    await page.goto(`file://${join(conformDir, 'index.html')}`);
    await page.screenshot({ path: join(SHOTS, 'conformance-report.png') });
    await page.goto(`file://${join(conformDir, 'index.html')}#detail-mesh.authorize.reason`);
    await page.screenshot({ path: join(SHOTS, 'conformance-failure.png') });
    expect(readFileSync(join(SHOTS, 'conformance-failure.png')).length).toBeGreaterThan(10_000);
    await finish(page);
  }, 90_000);

  it('load report: no empty conformance parts, the breach first, three charts a scenario whose values are the table\'s', async () => {
    const page = await open(browser, join(loadDir, 'index.html'));
    const html = await page.content();
    expect(html, 'a load-only report has no rule counts').not.toMatch(/0 of 0 rules|runs per property|id="summary"|id="rules"/);
    await expect(page.locator('h1').textContent()).resolves.toBe('stackproof load report');
    const breach = page.getByTestId('breach-mesh-roots').first();
    await expect(breach.textContent()).resolves.toMatch(/p99 latency \(ms\) was [\d.]+, above its limit 0\.001/);
    expect((await breach.boundingBox())!.y, 'the breach comes before the load table').toBeLessThan((await page.locator('table.load').boundingBox())!.y);
    // The table's numbers are results.json's.
    const rows = await page.getByTestId('load-row').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')));
    expect(rows.length).toBe(load.load.length);
    load.load.forEach((s, i) => expect(rows[i]!.slice(7, 12), `${s.scenario} ${s.engine}: p50 p90 p99 p99.9 max`).toEqual([s.latencyMs.p50, s.latencyMs.p90, s.latencyMs.p99, s.latencyMs.p999, s.latencyMs.max].map(String)));
    await expectNoOverflow(page);
    await expectChartsMatch(page, load.load);
    await page.locator('#scenario-0').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'load-report-charts.png') });
    await page.goto(`file://${join(loadDir, 'index.html')}`);
    await page.screenshot({ path: join(SHOTS, 'load-report.png') });
    await finish(page);
  }, 90_000);

  it('history page over twelve runs: counts per run, the rules that flipped and when, load figures run by run', async () => {
    const page = await open(browser, historyFile);
    await expect(page.getByTestId('history-source').textContent()).resolves.toMatch(/^24 run\(s\) read from/);
    // Conformance and load of the same embedded targets, and the load-only runs of another target set: apart.
    expect(await page.getByTestId('history-group').count()).toBe(2);
    const flip = page.getByTestId('flip-mesh.authorize.reason');
    await expect(flip.textContent()).resolves.toMatch(/2026-11-1\d 02:00: FAIL → PASS/);
    expect(await flip.locator('.strip span').count(), 'one cell a run').toBe(12);
    await expect(page.getByTestId('first-breaches').first().textContent()).resolves.toMatch(/p99 latency \(ms\): breached in \d+ of 12 run\(s\); first on 2026-11-/);
    const counts = await page.getByTestId('history-counts-mesh').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(counts.length).toBe(12);
    // Hover each run's point of the mesh counts chart: the legend shows that run's counts.
    const chartId = await page.locator('[data-testid^="chart-"]').first().getAttribute('data-testid');
    const id = chartId!.slice('chart-'.length);
    for (const run of [0, 5, 11]) {
      const legend = await hover(page, id, run);
      const pass = Number(counts[run]![1]);
      expect(legend, `run ${run}'s point`).toContain(`${pass} rules`);
      expect(legend[0], 'each point names its run, product and stackproof version').toMatch(/^2026-11-\d\d 02:00 UTC · run /);
    }
    await expectAxesAndLegends(page);
    await expectNoOverflow(page);
    await page.screenshot({ path: join(SHOTS, 'history.png') });
    await page.locator('[data-testid="load-series"]').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'history-load.png') });
    await finish(page);
  }, 90_000);
});

const requestsOf = new WeakMap<Page, string[]>();

async function open(browser: Browser, file: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) requests.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  requestsOf.set(page, requests);
  await page.goto(`file://${file}`);
  expect(errors, 'the page runs its scripts without an error').toEqual([]);
  return page;
}

async function finish(page: Page): Promise<void> {
  expect(requestsOf.get(page), 'the page fetched nothing from the network').toEqual([]);
  await page.close();
}

async function expectNoOverflow(page: Page): Promise<void> {
  const wide = await page.evaluate((width) => {
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const el of Array.from(document.querySelectorAll('table, pre, figure, .charts, dl'))) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > width + 0.5) out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} ends at ${Math.round(r.right)} px`);
    }
    return out;
  }, WIDTH);
  expect(wide, `nothing overflows a ${WIDTH} px window`).toEqual([]);
}

/** Every chart has two axes with a unit in the label, and a legend with one entry a series. */
async function expectAxesAndLegends(page: Page): Promise<void> {
  const charts = await page.evaluate(() =>
    Object.entries((window as unknown as { stackproofCharts: Record<string, { axes: Array<{ label?: string }>; series: Array<{ label?: string }>; root: HTMLElement }> }).stackproofCharts).map(([id, u]) => ({
      id,
      axes: u.axes.map((a) => a.label ?? ''),
      legend: Array.from(u.root.querySelectorAll('.u-legend .u-series')).map((e) => e.textContent ?? ''),
      series: u.series.length,
    })),
  );
  expect(charts.length).toBeGreaterThan(0);
  for (const c of charts) {
    expect(c.axes.length, `${c.id}: two axes`).toBe(2);
    expect(c.axes[1], `${c.id}: the y axis names its unit`).toMatch(/\((ms|\/s|rules|requests)\)$/);
    expect(c.axes[0], `${c.id}: the x axis is labelled`).not.toBe('');
    expect(c.legend.length, `${c.id}: a legend entry a series`).toBe(c.series);
  }
}

/** Moves the mouse over point `index` of a chart and returns its legend's values, x first. */
async function hover(page: Page, id: string, index: number): Promise<string[]> {
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  const at = await page.evaluate(
    ([chartId, i]) => {
      const u = (window as unknown as { stackproofCharts: Record<string, { data: number[][]; valToPos(v: number, s: string): number; over: HTMLElement }> }).stackproofCharts[chartId as string]!;
      const r = u.over.getBoundingClientRect();
      // A point on the plot's edge is hovered a pixel inside it: the edge itself is outside the plot.
      return { x: r.left + Math.min(Math.max(u.valToPos(u.data[0]![i as number]!, 'x'), 1), r.width - 1), y: r.top + 4 };
    },
    [id, index] as const,
  );
  await page.mouse.move(at.x, at.y);
  return page.locator(`#${id} .u-legend .u-value`).evaluateAll((els) => els.map((e) => e.textContent ?? ''));
}

/** Each scenario's charts, hovered at points whose values results.json holds. */
async function expectChartsMatch(page: Page, rows: RunResults['load']): Promise<void> {
  await expectAxesAndLegends(page);
  for (const [i, s] of rows.entries()) {
    if (s.error) continue;
    // The spectrum at 50 %, 90 %, 99 %, 99.9 % and the maximum: the table's p50, p90, p99, p99.9 and max.
    const percentiles = await page.evaluate((id) => {
      const u = (window as unknown as { stackproofCharts: Record<string, { data: number[][] }> }).stackproofCharts[id];
      return u ? u.data[0]!.map((x) => Math.round((100 - 100 / x) * 10_000) / 10_000) : [];
    }, `load-${i}-spectrum`);
    expect(percentiles.length, `${s.scenario} ${s.engine} has a latency spectrum`).toBeGreaterThan(5);
    const named: Array<[number, number, string]> = [
      [percentiles.indexOf(50), s.latencyMs.p50, '50%'],
      [percentiles.indexOf(90), s.latencyMs.p90, '90%'],
      [percentiles.indexOf(99), s.latencyMs.p99, '99%'],
      [percentiles.indexOf(99.9), s.latencyMs.p999, '99.9%'],
      [percentiles.length - 1, s.latencyMs.max, '100% (max)'],
    ];
    for (const [index, value, label] of named) {
      expect(index, `${label} is a point of the spectrum`).toBeGreaterThanOrEqual(0);
      const legend = await hover(page, `load-${i}-spectrum`, index);
      expect(legend[0]).toBe(label);
      expect(legend[1], `${s.scenario} ${s.engine} at ${label}`).toBe(`${value} ms`);
      if (s.thresholds.some((t) => t.name.startsWith('p99'))) expect(legend[2]).toBe(`${s.thresholds.find((t) => t.name.startsWith('p99'))!.limit} ms`);
    }
    // The latency and rate charts at a second of the timeline: that second's figures.
    const second = s.timeline[Math.floor(s.timeline.length / 2)]!;
    const index = [...s.timeline].sort((a, b) => a.t - b.t).indexOf(second);
    const latency = await hover(page, `load-${i}-latency`, index);
    expect(latency).toEqual([`${second.t} s`, `${second.p50} ms`, `${second.p90} ms`, `${second.p99} ms`, `${second.max} ms`]);
    const rate = await hover(page, `load-${i}-rate`, index);
    expect(rate).toEqual([`${second.t} s`, `${second.requests} /s`, `${second.errors} /s`]);
  }
}

/**
 * Twelve nights from the two real runs: the conformance run's mesh.authorize.reason fails on some
 * nights and passes on others, the load run's p99 grows night by night past a threshold.
 */
async function writeHistory(conform: RunResults, load: RunResults): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-history-'));
  for (let night = 0; night < 12; night++) {
    const startedAt = new Date(Date.UTC(2026, 10, 10 + night, 2, 0, 0)).toISOString();
    const c = structuredClone(conform);
    c.run = { ...c.run, id: `night-${night}-conform`, startedAt };
    const reason = c.rules.find((r) => r.id === 'mesh.authorize.reason')!;
    reason.outcome = night % 4 === 0 ? 'FAIL' : 'PASS';
    const l = structuredClone(load);
    l.run = { ...l.run, id: `night-${night}-load`, startedAt: new Date(Date.parse(startedAt) + 3_600_000).toISOString() };
    for (const s of l.load) {
      s.latencyMs = { ...s.latencyMs, p99: Math.round(night * 100) / 100 };
      s.thresholds = s.thresholds.map((t) => (t.name.startsWith('p99') ? { ...t, limit: 5, actual: s.latencyMs.p99, ok: s.latencyMs.p99 <= 5 } : t));
    }
    for (const [name, results] of [['conform', c], ['load', l]] as const) {
      const at = join(dir, `${startedAt.slice(0, 10)}-${name}`);
      mkdirSync(at, { recursive: true });
      writeFileSync(join(at, 'results.json'), JSON.stringify(results));
    }
  }
  writeFileSync(join(dir, 'coverage.json'), '{"not":"a run"}');
  const out = join(dir, 'history.html');
  const res = await runCli(['report', '--history', dir, '--out', out]);
  expect(res.code, res.stdout + res.stderr).toBe(0);
  expect(res.stdout).toMatch(/^history: .*history\.html \(24 run\(s\) from 2026-11-10T02:00:00\.000Z to 2026-11-21T03:00:00\.000Z; 1 file\(s\) left out\)$/m);
  expect(res.stderr).toContain('left out coverage.json: not a stackproof results.json');
  return out;
}
