import { chromium, expect, test, type Browser, type Page } from '@playwright/test';
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { derive } from '../derive/histories.ts';
import { evaluateFamilies, INVARIANTS, invariantsIn } from '../evaluate/registry.ts';
import type { Timeline } from '../model.ts';
import { renderHtml } from './html.ts';

/**
 * timeline.html as a person first sees it: recorded timelines (a pass, a fail, an INCONCLUSIVE
 * one) rendered with every registered invariant and opened in headless Chromium at 1280 px.
 * The page must load offline without a console error or any request, show the violated pair
 * highlighted, link it to its rows, and fit the width. A screenshot of each is attached.
 */

const HOW_TO_GET_A_BROWSER = 'no Chromium found: install one (`apt-get install chromium` on Debian, or `npx playwright install chromium`), or point CHROMIUM_PATH at one';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const WIDTH = 1280;

/** CHROMIUM_PATH, else chromium / chromium-browser / google-chrome on PATH, else the browser Playwright installed. */
function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  const bundled = chromium.executablePath();
  return existsSync(bundled) ? bundled : undefined;
}

const executablePath = findChromium();
let browser: Browser;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  if (executablePath) browser = await chromium.launch({ executablePath, args: FLAGS });
});

test.afterAll(async () => {
  await browser?.close();
});

/** A recorded timeline from testdata as the timeline fixture writes it: with every registered invariant's verdicts. */
function writePage(name: string): { url: string; html: string } {
  const timeline = JSON.parse(readFileSync(new URL(`../testdata/${name}.json`, import.meta.url), 'utf8')) as Timeline;
  const html = renderHtml(timeline, evaluateFamilies(derive(timeline), { apiHeadroomSeconds: 5 }));
  const file = test.info().outputPath(`${name}.html`);
  writeFileSync(file, html);
  return { url: pathToFileURL(file).href, html };
}

/** Opens the page at 1280 px, recording console errors, page errors and every request the page makes. */
async function open(url: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(url);
  return { page, errors, requests };
}

async function expectOfflineAndReadable(page: Page, url: string, errors: string[], requests: string[], name: string): Promise<void> {
  expect(errors, 'console errors').toEqual([]);
  expect(requests, 'the page asks for nothing but itself').toEqual([url]);
  const widths = await page.evaluate(() => ({ document: document.documentElement.scrollWidth, body: document.body.scrollWidth, viewport: window.innerWidth }));
  expect(widths.document, 'no horizontal scrolling of the page at 1280 px').toBeLessThanOrEqual(widths.viewport);
  expect(widths.body).toBeLessThanOrEqual(widths.viewport);
  // The swimlane scales down to the column rather than pushing the page wider.
  const svg = await page.locator('.svg svg').boundingBox();
  expect(svg!.width).toBeGreaterThan(WIDTH / 2);
  expect(svg!.x + svg!.width).toBeLessThanOrEqual(WIDTH);
  // Every evidence and pair link lands on an entry row; a row early in the table, which the
  // page scrolls to the top, shows below the sticky header.
  const targets = await page.locator('a[href^="#e-"]').evaluateAll((links) => links.map((a) => a.getAttribute('href')!));
  for (const href of new Set(targets)) expect(await page.locator(`tr${href}`).count(), `row for ${href}`).toBe(1);
  const early = await page.locator('tbody tr').nth(3).getAttribute('id');
  await page.goto(`${url}#${early}`);
  await expectShownBelowHeader(page, `#${early}`);
  await test.info().attach(`${name}.png`, { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
}

/** The row is the link target, in view, and not under the table's sticky header. */
async function expectShownBelowHeader(page: Page, href: string): Promise<void> {
  const row = page.locator(`tr${href}`);
  await expect(row).toBeInViewport();
  const place = await row.evaluate((tr) => ({ target: tr.matches(':target'), top: tr.getBoundingClientRect().top, header: document.querySelector('th')!.getBoundingClientRect().bottom }));
  expect(place.target).toBe(true);
  expect(place.top, `row ${href} starts below the sticky header`).toBeGreaterThanOrEqual(place.header - 0.5);
}

/** Follows the verdict's pair link to the row that should have come first, and checks the row is shown as the target. */
async function followPair(page: Page, verdictId: string, status: 'fail' | 'inconclusive'): Promise<void> {
  const verdict = page.locator(`li.verdict.${status}`).filter({ has: page.locator('code', { hasText: verdictId }) }).first();
  await expect(verdict).toBeVisible();
  const pairLinks = verdict.locator('.vsource a').filter({ hasNotText: 'evidence' });
  const hrefs = await verdict.locator('.vsource').evaluate((el) => [...el.querySelectorAll('a')].map((a) => a.getAttribute('href')!));
  const [first, later] = hrefs.slice(-2);
  for (const href of [first, later]) await expect(page.locator(`tr${href}`)).toHaveClass(new RegExp(`\\bev-${status}\\b.*\\bpair\\b|\\bpair\\b.*\\bev-${status}\\b`));
  expect(await pairLinks.count()).toBeGreaterThanOrEqual(2);
  await verdict.locator(`.vsource a[href="${first}"]`).last().click();
  await expect(page).toHaveURL(new RegExp(`${first}$`));
  const row = page.locator(`tr${first}`);
  await expectShownBelowHeader(page, first);
  // The pair is set apart: bold, with a coloured bar at its left edge.
  const style = await row.locator('td').first().evaluate((td) => ({ weight: getComputedStyle(td).fontWeight, shadow: getComputedStyle(td).boxShadow }));
  expect(style.weight).toBe('700');
  expect(style.shadow).toContain('inset');
  // And ringed in the picture, both entries.
  const rings = page.locator(`svg g.tl-highlight-${status}[data-verdict="${verdictId}"]`);
  expect(await rings.count()).toBe(2);
  for (const ring of await rings.all()) expect((await ring.boundingBox())!.width).toBeGreaterThan(10);
}

test.beforeEach(() => {
  test.skip(!executablePath, HOW_TO_GET_A_BROWSER);
});

test('a passing stop: every verdict PASS, the families with nothing to judge last and NOT SEEN, nothing highlighted, offline, fits 1280 px', async () => {
  const { url } = writePage('recorded-reference');
  const { page, errors, requests } = await open(url);
  await expect(page.locator('h1')).toHaveText(/stop-ordering/);
  const badges = await page.locator('li.verdict .badge').allInnerTexts();
  expect(badges.length).toBeGreaterThanOrEqual(INVARIANTS.length);
  // A create and a stop: start/ and stop/ are judged, but for their repeated-call rules (no call was
  // repeated); delete/, reconcile/ and identity/ have nothing to judge.
  const repeated = (i: { id: string }) => i.id.includes('/repeated-');
  const judged = badges.filter((b) => b !== 'NOT SEEN');
  expect(judged.length).toBeGreaterThanOrEqual([...invariantsIn('start/'), ...invariantsIn('stop/')].filter((i) => !repeated(i)).length);
  expect([...new Set(judged)]).toEqual(['PASS']);
  expect(badges.slice(judged.length)).toEqual(badges.filter((b) => b === 'NOT SEEN'));
  const unseen = [...invariantsIn('start/').filter(repeated), ...invariantsIn('stop/').filter(repeated), ...invariantsIn('delete/'), ...invariantsIn('reconcile/'), ...invariantsIn('identity/')];
  expect(await page.locator('li.verdict.unseen code').allInnerTexts()).toEqual(unseen.map((i) => i.id));
  expect(await page.locator('tr.ev-fail, tr.ev-inconclusive, tr.pair').count()).toBe(0);
  expect(await page.locator('svg g.tl-highlight-fail, svg g.tl-highlight-inconclusive').count()).toBe(0);
  await expectOfflineAndReadable(page, url, errors, requests, 'pass');
  await page.close();
});

test('the suspend-first defect: FAIL first, the violated pair ringed, its rows linked and highlighted', async () => {
  const { url } = writePage('recorded-suspend-first');
  const { page, errors, requests } = await open(url);
  const badges = await page.locator('li.verdict .badge').allInnerTexts();
  expect(badges[0]).toBe('FAIL');
  expect(badges.filter((b) => b === 'FAIL').length).toBeGreaterThanOrEqual(3);
  await expect(page.locator('li.verdict.fail pre').first()).toContainText('violated:');
  await followPair(page, 'stop/supervisor-gone-before-workload-delete', 'fail');
  await expect(page.locator('svg g.tl-arrow-fail[data-verdict="stop/supervisor-gone-before-workload-delete"]')).toHaveCount(1);
  await expectOfflineAndReadable(page, url, errors, requests, 'fail');
  await page.close();
});

test('a watch gap over the stop: INCONCLUSIVE, the pair in orange, the gap shaded', async () => {
  const { url } = writePage('recorded-reference-watch-gap');
  const { page, errors, requests } = await open(url);
  expect(await page.locator('li.verdict .badge').first().innerText()).toBe('INCONCLUSIVE');
  await expect(page.locator('li.verdict.inconclusive pre').first()).toContainText('a watch gap on pods');
  await followPair(page, 'stop/supervisor-gone-before-workload-delete', 'inconclusive');
  await expect(page.locator('svg g.tl-gap[data-resource="pods"]')).toHaveCount(1);
  await expectOfflineAndReadable(page, url, errors, requests, 'inconclusive');
  await page.close();
});
