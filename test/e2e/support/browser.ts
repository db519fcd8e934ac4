import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../../test-results/screenshots/', import.meta.url));

/** Debian's Chromium, headless; Playwright gives every launch a fresh, throw-away profile. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // Once the page's requests have settled (polling leaves gaps), from the top so the sticky header is not
  // painted over the middle of a full-page capture.
  await page.waitForLoadState('networkidle');
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/**
 * Collects what the page reports as broken: uncaught errors, and console errors other than the browser's own
 * note about a failed HTTP status (the app shows those failures itself).
 */
export function watchForErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (message.text().startsWith('Failed to load resource')) return;
    problems.push(`console: ${message.text()}`);
  });
  return problems;
}

/**
 * Form controls without an accessible name and images without alternative text on the current page: each is
 * described by its tag and id or name so a failure points at it.
 */
export async function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate<
    string[]
  >(`[...document.querySelectorAll('input:not([type=hidden]), select, textarea, img:not([alt])')]
    .filter((element) => element.tagName === 'IMG' || !(element.labels?.length || element.getAttribute('aria-label') || element.getAttribute('aria-labelledby')))
    .map((element) => element.tagName.toLowerCase() + '#' + (element.id || element.getAttribute('name') || '?'))`);
}

/** Screenshots committed with the project, so a reader sees each main screen without running anything. */
export const DOCS_SCREENSHOT_DIR = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));

export async function docsScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(DOCS_SCREENSHOT_DIR, { recursive: true });
  await page.waitForLoadState('networkidle');
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(DOCS_SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's WCAG 2.1 A and AA checks on the page as it stands, each violation as "rule: target, target". The
 * script is evaluated through the DevTools protocol, so the page's content-security policy does not block it.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate<string[]>(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => result.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}
