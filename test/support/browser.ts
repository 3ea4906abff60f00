import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';

/** The names Chromium goes by on Linux distributions and in Google's packages. */
const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** Flags for a headless run on a closed network (no update checks, no background fetches). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** SKIP_BROWSER_TESTS=1 skips the browser suites (the README's opt-out); nothing else does. */
export const browserTestsSkipped = process.env.SKIP_BROWSER_TESTS === '1';

/**
 * A describe for a suite that drives a real Chromium: skipped, with the reason in its name, only
 * under the documented opt-out.
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (browserTestsSkipped) describe.skip(`${name} [skipped: SKIP_BROWSER_TESTS=1]`, body);
  else describe(name, body);
}

/** Whether `path` is a file this process may run. */
export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** CHROMIUM_PATH, else the first Chromium on PATH; null when there is none. */
export function findChromium(): string | null {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return executable(configured) ? configured : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of CHROMIUM_NAMES) {
      if (executable(join(dir, name))) return join(dir, name);
    }
  }
  return null;
}

/** Starts headless Chromium; without one, fails with one line saying how to get it. */
export async function launchChromium(): Promise<Browser> {
  const found = findChromium();
  if (!found) {
    throw new Error(
      process.env.CHROMIUM_PATH
        ? `CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable Chromium`
        : 'no Chromium found: install one (Debian: apt-get install -y chromium) or set CHROMIUM_PATH; SKIP_BROWSER_TESTS=1 skips the browser tests',
    );
  }
  return chromium.launch({ executablePath: found, args: CHROMIUM_ARGS });
}

/**
 * axe-core's rules run in the page: the violations people meet first (serious, critical). axe is
 * added as a script, which the console's policy refuses: the page's context must bypass it.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: readFileSync(require.resolve('axe-core'), 'utf8') });
  const results = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
  };
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
