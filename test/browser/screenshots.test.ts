// The browser harness leaves a screenshot of each open page of a failed browser test in test-artifacts/
// (test/browser/support/chromium.ts): a test that fails on purpose, run in a mocha of its own, leaves a
// PNG of its page there. Skipped where no Chromium is installed, as the browser suites are.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { chromiumExecutable, screenshotDir } from './support/chromium.js';

const fixture = fileURLToPath(new URL('./fixtures/failing-on-purpose.js', import.meta.url));
const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const screenshot = join(screenshotDir, 'screenshot-fixture-fails-with-a-page-open-0.png');

describe('browser: a failing test leaves a screenshot', function () {
  this.timeout(90_000);

  before(function () {
    if (!chromiumExecutable()) this.skip();
  });

  it('saves a PNG of the failed test’s page under test-artifacts/', async () => {
    rmSync(screenshot, { force: true });
    const run = await runMocha(fixture);
    expect(run.code, run.output).to.equal(1);
    expect(run.output).to.contain(`screenshot of the failed test: ${screenshot}`);
    expect(existsSync(screenshot)).to.equal(true);
    expect(readFileSync(screenshot).subarray(1, 4).toString()).to.equal('PNG');
    rmSync(screenshot, { force: true });
  });
});

function runMocha(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [mocha, '--no-config', '--exit', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
