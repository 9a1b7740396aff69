import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { ROOT, runCli } from './support/run-cli.ts';

const CHROMIUM = '/usr/bin/chromium';

/**
 * The HTML report in a real browser (Debian's chromium, driven by playwright-core), offline: the
 * summary, two clicks from the summary to a failure's replay command, the filters and the search.
 */
describe('the HTML report in headless Chromium', () => {
  let browser: Browser;
  let reportDir: string;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium (apt-get install chromium)`);
    reportDir = mkdtempSync(join(tmpdir(), 'stackproof-browser-'));
    const res = await runCli(['conform', '--systems', 'mesh', '--reference-fault', 'mesh.leaf-self-signed', '--reference-fault', 'mesh.authorize-empty-reason', '--runs', '3', '--no-load-smoke', '--reports-dir', reportDir]);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 120_000);
  afterAll(async () => browser?.close());

  it('shows the summary, leads to a replay command in two clicks, and filters', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(`file://${join(reportDir, 'index.html')}`);
    await expect(page.getByTestId('verdict').textContent()).resolves.toMatch(/FAILED: \d+ pass, \d+ fail/);
    const summary = page.getByTestId('summary-mesh');
    await expect(summary.textContent()).resolves.toMatch(/FAIL \d+/);

    // Click 1: the failing rule in the summary. Its details, with the replay command, are on screen.
    await page.getByTestId('summary-link-mesh.leaf.chains-to-active-root').click();
    const replay = page.getByTestId('replay-mesh.leaf.chains-to-active-root');
    await replay.waitFor({ state: 'visible' });
    expect(await replay.isVisible()).toBe(true);
    expect(await replay.textContent()).toMatch(/^npx stackproof conform .*--rules mesh\.leaf\.chains-to-active-root/);
    const box = await replay.boundingBox();
    expect(box && box.y >= 0 && box.y < 900, 'the replay command is in the viewport after one click').toBe(true);
    // Click 2: copy it.
    await page.getByTestId('failure-mesh.leaf.chains-to-active-root').getByRole('button', { name: 'copy' }).click();

    // Filters and search.
    await page.selectOption('#f-outcome', 'FAIL');
    const visible = await page.locator('tr.rule:not(.hidden)').evaluateAll((rows) => rows.map((r) => `${r.id}:${r.getAttribute("data-outcome")}`));
    expect(visible).toEqual(expect.arrayContaining(['rule-mesh.authorize.reason:FAIL', 'rule-mesh.leaf.chains-to-active-root:FAIL']));
    for (const v of visible) expect(v, 'only FAIL rows are shown').toMatch(/:FAIL$/);
    expect(await page.locator('tr.rule.hidden').count(), 'the passing rows are hidden').toBeGreaterThan(0);
    await page.selectOption('#f-outcome', '');
    await page.fill('#f-search', 'serial');
    const searched = await page.locator('tr.rule:not(.hidden)').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-search') ?? ''));
    expect(searched.length).toBeGreaterThan(0);
    expect(searched.length, 'the search hides rules that do not mention it').toBeLessThan(await page.locator('tr.rule').count());
    for (const text of searched) expect(text, 'each rule shown mentions the search text (id, title or spec quote)').toContain('serial');
    await page.fill('#f-search', '');
    await page.selectOption('#f-level', 'UPSTREAM');
    expect(await page.locator('tr.rule:not(.hidden)').count(), 'no UPSTREAM rules ran under the default profile').toBe(0);
    await page.selectOption('#f-level', '');

    await page.goto(`file://${join(reportDir, 'index.html')}#detail-mesh.authorize.reason`);
    await page.screenshot({ path: join(ROOT, 'reports', 'report-screenshot.png'), fullPage: false });
    expect(readFileSync(join(ROOT, 'reports', 'report-screenshot.png')).length).toBeGreaterThan(10_000);
    expect(requests, 'the report fetched nothing from the network').toEqual([]);
    await page.close();
  }, 60_000);
});
