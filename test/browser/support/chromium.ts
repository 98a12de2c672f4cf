// Headless Chromium for browser tests: Debian's `chromium` (or STORYLINE_CHROMIUM) driven by
// playwright-core, which never downloads a browser of its own. `.ci/run` installs the package; where no
// executable is found the suites that use this are skipped, saying why.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Where a failing browser test leaves its screenshot (gitignored). */
export const screenshotDir = fileURLToPath(new URL('../../../../test-artifacts/', import.meta.url));

export function chromiumExecutable(): string | null {
  const candidates = [process.env['STORYLINE_CHROMIUM'], '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((path): path is string => Boolean(path) && existsSync(path!)) ?? null;
}

// Without the background-networking flags Chromium keeps dialling hosts a closed network refuses.
const flags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: flags, timeout: 30_000 });
}

export interface BrowserSession {
  browser(): Browser;
  /** A fresh context (its own storage) and page; closed after the test. */
  newPage(): Promise<Page>;
}

/**
 * Call inside a mocha `describe`: launches one Chromium for the suite (or skips the suite when none is
 * installed), closes every page's context after each test, and saves a screenshot of each open page of
 * a failed test under test-artifacts/.
 */
export function useChromium(): BrowserSession {
  let browser: Browser | null = null;
  const contexts: BrowserContext[] = [];

  before(async function () {
    const executable = chromiumExecutable();
    if (!executable) {
      console.warn('  browser tests skipped: no chromium executable (apt-get install chromium, or set STORYLINE_CHROMIUM)');
      this.skip();
    }
    this.timeout(60_000);
    browser = await launchChromium(executable);
  });

  afterEach(async function () {
    const failed = this.currentTest?.state === 'failed';
    const open = contexts.splice(0);
    if (failed) {
      mkdirSync(screenshotDir, { recursive: true });
      const name = (this.currentTest?.fullTitle() ?? 'test').replace(/[^\w.-]+/g, '-').slice(0, 120);
      let index = 0;
      for (const context of open) {
        for (const page of context.pages()) {
          const file = join(screenshotDir, `${name}-${index++}.png`);
          await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
          console.warn(`  screenshot of the failed test: ${file}`);
        }
      }
    }
    await Promise.all(open.map((context) => context.close().catch(() => undefined)));
  });

  after(async () => {
    await browser?.close();
    browser = null;
  });

  return {
    browser() {
      if (!browser) throw new Error('Chromium is not running (used outside a test?)');
      return browser;
    },
    async newPage() {
      const context = await this.browser().newContext();
      contexts.push(context);
      return context.newPage();
    },
  };
}
