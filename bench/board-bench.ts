// `npm run bench -- board`: the board in Debian's Chromium against `storyline serve` on this machine.
// A project of 1,000 stories (400 accepted across 200 done iterations, 20 in progress, 380 in the
// Backlog, 200 in the Icebox) is seeded through the API; then:
// - time to interactive, cold: each load in a fresh browser context (empty cache), signed in, from the
//   navigation's start to the frame after the board first showed its data (`storyline:board-interactive`;
//   a long Backlog or Icebox shows its first cards then and the rest in the frames after); one load
//   before, not counted, warms the server;
// - the board's JavaScript, gzipped (what the server sends);
// - drags within the Backlog: from the drop to the next frame, checking the card is then shown at its new
//   place (`storyline:drop` -> `storyline:drop-shown`), and from the PUT sent to its answer
//   (`storyline:move-sent` -> `storyline:move-confirmed`).
// - live (where the server has the activity stream): a story renamed through the API by another client,
//   from the request sent to the new name on the board (wall clock on both sides).
// Targets (issue 34): interactive within 1.5 s, JavaScript <= 200 KB gzipped, the new order within one
// frame, the server's confirmation within 100 ms p95, another browser's change within a second.
// BOARD_BENCH_LOADS / BOARD_BENCH_DRAGS / BOARD_BENCH_LIVE change the number of rounds; BOARD_BENCH_DATA
// keeps the seeded data directory for the next run.
import { cpus, loadavg, tmpdir } from 'node:os';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { configFromEnv } from '../src/infra/config.js';
import { BUILT_BOARD_DIR } from '../src/infra/board-assets.js';
import { chromiumExecutable, launchChromium } from '../test/browser/support/chromium.js';
import { PREFIX, withBenchOwner } from './bench-owner.js';
import { freePort, startChild, stopChild, waitUntilServing } from './http-bench.js';
import { median, percentile } from './stats.js';

const STORIES = { accepted: 400, inProgress: 20, backlog: 380, icebox: 200 };
const DONE_ITERATIONS = 200;
const WEEK = 7 * 24 * 3600 * 1000;

export async function run(): Promise<void> {
  const executable = chromiumExecutable();
  if (!executable) {
    console.log('board bench skipped: no chromium executable (apt-get install chromium, or set STORYLINE_CHROMIUM)');
    return;
  }
  const loads = Number(process.env['BOARD_BENCH_LOADS'] ?? 7);
  const drags = Number(process.env['BOARD_BENCH_DRAGS'] ?? 30);
  const lives = Number(process.env['BOARD_BENCH_LIVE'] ?? 15);
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  console.log(`board JavaScript: ${(scriptGzipBytes() / 1024).toFixed(1)} KiB gzipped (target <= 200 KB)`);

  // BOARD_BENCH_DATA=<dir>: seed once into that directory and reuse it on later runs.
  const kept = process.env['BOARD_BENCH_DATA'];
  if (kept) mkdirSync(kept, { recursive: true });
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'storyline-board-bench-'));
  let child: ReturnType<typeof startChild> | null = null;
  let browser: Browser | null = null;
  try {
    const seedStarted = performance.now();
    const { projectId, token } = kept && existsSync(join(kept, 'bench.json')) ? (JSON.parse(readFileSync(join(kept, 'bench.json'), 'utf8')) as { projectId: number; token: string }) : await seed(dir);
    if (kept) writeFileSync(join(kept, 'bench.json'), JSON.stringify({ projectId, token }));
    console.log(`seeded ${Object.values(STORIES).reduce((a, b) => a + b, 0)} stories, ${DONE_ITERATIONS} done iterations in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

    const port = await freePort();
    child = startChild(fileURLToPath(new URL('../src/infra/cli/main.js', import.meta.url)), ['serve'], {
      STORYLINE_DATA: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      STORYLINE_LOG_LEVEL: 'warn',
    });
    await waitUntilServing(port, `${PREFIX}/projects/${projectId}`, { 'X-TrackerToken': token });
    const url = `http://127.0.0.1:${port}/n/projects/${projectId}`;
    browser = await launchChromium(executable);

    const interactive: number[] = [];
    const longestTasks: number[] = [];
    let page: Page | null = null;
    // One load first, not counted: the server's caches warm up (the browser's stay cold: a new context each load).
    for (let round = -1; round < loads; round += 1) {
      if (page) await page.context().close();
      page = await signedInPage(browser, token);
      await page.goto(url);
      await page.waitForFunction(() => performance.getEntriesByName('storyline:board-interactive').length > 0, undefined, { timeout: 60_000 });
      const ms = (await page.evaluate(() => performance.getEntriesByName('storyline:board-interactive')[0]!.startTime)) as number;
      const dataIn = (await page.evaluate(() => performance.getEntriesByName('storyline:board-loaded')[0]!.startTime)) as number;
      // The longest task in the 2 s after: the board must answer a click then too (the rest of a long
      // list is added in slices).
      await page.waitForTimeout(2000);
      const longTasks = (await page.evaluate(() => (globalThis as unknown as { storylineLongTasks: Array<[number, number]> }).storylineLongTasks)) as Array<[number, number]>;
      const longestAfter = Math.max(0, ...longTasks.filter(([start, duration]) => start + duration > ms && start < ms + 2000).map(([, duration]) => duration));
      const cards = await page.locator('.card').count();
      if (round >= 0) {
        interactive.push(ms);
        longestTasks.push(longestAfter);
      }
      const requests = (await page.evaluate(() =>
        performance.getEntriesByType('resource').map((entry) => `${new URL(entry.name).pathname.replace(/^.*\/(\w+)$/, '$1')} ${entry.startTime.toFixed(0)}+${entry.duration.toFixed(0)}`),
      )) as string[];
      console.log(`  ${round < 0 ? 'warm-up load (not counted)' : `cold load ${round + 1}`}: interactive after ${ms.toFixed(0)} ms (data in after ${dataIn.toFixed(0)} ms; longest task in the 2 s after ${longestAfter.toFixed(0)} ms; ${cards} cards shown; requests, start+duration ms: ${requests.join(', ')})`);
    }
    const sorted = [...interactive].sort((a, b) => a - b);
    console.log(`time to interactive, cold cache (${loads} loads): median ${median(interactive).toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms (target 1,500 ms)`);
    console.log(`longest main-thread task in the 2 s after interactive: median ${median(longestTasks).toFixed(0)} ms, max ${Math.max(...longestTasks).toFixed(0)} ms`);

    await measureDrags(page!, drags);
    await measureLive(page!, `http://127.0.0.1:${port}${PREFIX}/projects/${projectId}`, token, lives);
  } finally {
    await browser?.close();
    if (child) await stopChild(child);
    if (!kept) rmSync(dir, { recursive: true, force: true });
  }
}

/** The project and its stories, written through the API by an in-process server on the data directory. */
async function seed(dir: string): Promise<{ projectId: number; token: string }> {
  const config = { ...configFromEnv({ STORYLINE_DATA: dir }), siteUrl: 'http://localhost' };
  return withBenchOwner(config, async ({ person, post }) => {
    const thisMonday = mondayOf(Date.now());
    const start = thisMonday - DONE_ITERATIONS * WEEK;
    const project = await post('/projects', {
      name: 'Board bench',
      new_account_name: 'Bench account',
      start_date: new Date(start).toISOString().slice(0, 10),
      week_start_day: 'Monday',
      iteration_length: 1,
      initial_velocity: 10,
      velocity_averaged_over: 3,
      bugs_and_chores_are_estimatable: true,
      point_scale: '0,1,2,3,5,8',
    });
    const projectId = Number(project['id']);
    const labels = ['api', 'ui', 'ops', 'billing', 'search'];
    const story = (index: number, extra: Record<string, unknown>) =>
      post(`/projects/${projectId}/stories`, {
        name: `Story ${index}: ${['Fix', 'Add', 'Polish', 'Remove'][index % 4]} the ${['login', 'export', 'search', 'report', 'invite'][index % 5]} flow`,
        story_type: index % 7 === 0 ? 'bug' : 'feature',
        labels: [labels[index % labels.length]],
        ...extra,
      });
    let index = 0;
    for (let done = 0; done < STORIES.accepted; done += 1) {
      const iteration = Math.floor((done * DONE_ITERATIONS) / STORIES.accepted);
      await story(index++, { current_state: 'accepted', estimate: 5, accepted_at: start + iteration * WEEK + 36 * 3600 * 1000 + done * 1000 });
    }
    const progress = ['started', 'finished', 'delivered', 'rejected'];
    for (let n = 0; n < STORIES.inProgress; n += 1) await story(index++, { current_state: progress[n % progress.length], estimate: (n % 3) + 1, owner_ids: [person.id] });
    for (let n = 0; n < STORIES.backlog; n += 1) await story(index++, { current_state: 'unstarted', estimate: (n % 3) + 1 });
    for (let n = 0; n < STORIES.icebox; n += 1) await story(index++, {});
    return { projectId, token: person.api_token };
  });
}

function mondayOf(time: number): number {
  const day = new Date(time);
  const midnight = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  const weekday = (day.getUTCDay() + 6) % 7;
  return midnight - weekday * 24 * 3600 * 1000;
}

/** A fresh context (its own empty cache) whose tab already holds the token, as after signing in. */
async function signedInPage(browser: Browser, token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.addInitScript(`sessionStorage.setItem('storyline.token', ${JSON.stringify(token)})`);
  // Main-thread tasks over 50 ms (what would hold up a click), noted from the page's start.
  await context.addInitScript(`window.storylineLongTasks = [];
    new PerformanceObserver((list) => { for (const task of list.getEntries()) window.storylineLongTasks.push([task.startTime, task.duration]); }).observe({ type: 'longtask', buffered: true });`);
  return context.newPage();
}

/** Drags a Backlog card two places down, again and again, reading the marks the board leaves. */
async function measureDrags(page: Page, rounds: number): Promise<void> {
  const shownMs: number[] = [];
  const confirmedMs: number[] = [];
  const settledMs: number[] = [];
  let misplaced = 0;
  for (let round = 0; round < rounds; round += 1) {
    await page.evaluate(() => performance.clearMarks());
    // The first Backlog iteration with four stories or more.
    const lists = page.locator('.panel-backlog .story-list');
    let cards = lists.first().locator(':scope > .card');
    for (let index = 0; index < (await lists.count()); index += 1) {
      cards = lists.nth(index).locator(':scope > .card');
      if ((await cards.count()) >= 4) break;
    }
    const from = await cards.nth(1).boundingBox();
    const to = await cards.nth(3).boundingBox();
    if (!from || !to) throw new Error('no Backlog cards to drag');
    await page.mouse.move(from.x + 20, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + 24, from.y + from.height / 2 + 4, { steps: 3 });
    await page.mouse.move(to.x + 20, to.y + to.height * 0.75, { steps: 10 });
    await page.mouse.move(to.x + 22, to.y + to.height * 0.75 + 1, { steps: 2 });
    await page.mouse.up();
    // Settled: the server answered the move and the panels were read again after the drop.
    const settled = () => {
      const drop = performance.getEntriesByName('storyline:drop')[0];
      const reads = performance.getEntriesByName('storyline:board-loaded');
      return drop !== undefined && performance.getEntriesByName('storyline:move-confirmed').length > 0 && reads.some((read) => read.startTime > drop.startTime);
    };
    await page.waitForFunction(settled, undefined, { timeout: 30_000 });
    const marks = (await page.evaluate(() => {
      const at = (name: string) => performance.getEntriesByName(name)[0] as { startTime: number; detail?: unknown } | undefined;
      const drop = at('storyline:drop')?.startTime ?? 0;
      const loaded = performance.getEntriesByName('storyline:board-loaded').find((read) => read.startTime > drop);
      return {
        drop: at('storyline:drop')?.startTime,
        shown: at('storyline:drop-shown')?.startTime,
        detail: at('storyline:drop-shown')?.detail as { expected: number; shown: number } | undefined,
        sent: at('storyline:move-sent')?.startTime,
        confirmed: at('storyline:move-confirmed')?.startTime,
        loaded: loaded?.startTime,
      };
    })) as { drop?: number; shown?: number; detail?: { expected: number; shown: number }; sent?: number; confirmed?: number; loaded?: number };
    if (marks.drop === undefined || marks.shown === undefined || marks.sent === undefined || marks.confirmed === undefined || marks.loaded === undefined) {
      throw new Error(`drag ${round + 1} left no marks: ${JSON.stringify(marks)}`);
    }
    if (marks.detail?.expected !== marks.detail?.shown) misplaced += 1;
    shownMs.push(marks.shown - marks.drop);
    confirmedMs.push(marks.confirmed - marks.sent);
    settledMs.push(marks.loaded - marks.drop);
  }
  const describe = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms`;
  };
  console.log(`drags within the Backlog (${rounds}):`);
  console.log(`  drop -> next frame with the new order: ${describe(shownMs)} (target: one frame, 16.7 ms at 60 Hz); shown at the wrong place: ${misplaced}`);
  console.log(`  PUT sent -> server's answer: ${describe(confirmedMs)} (target p95 <= 100 ms)`);
  console.log(`  drop -> panels read again (1,000 stories): ${describe(settledMs)}`);
}

/** Renames the first Current story through the API (another client) and times until the board shows it. */
async function measureLive(page: Page, projectUrl: string, token: string, rounds: number): Promise<void> {
  await page.locator('.live-status.live, .live-status.unavailable').waitFor({ timeout: 30_000 });
  if ((await page.locator('.live-status.unavailable').count()) > 0) {
    console.log('live: skipped (this server has no activity stream)');
    return;
  }
  const storyId = Number(await page.locator('.panel-current .card').first().getAttribute('data-story-id'));
  const shownMs: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const name = `Renamed elsewhere ${round} ${Date.now()}`;
    // An observer in the page notes the wall-clock time the new name is first shown (a string: this file
    // is compiled without the DOM's types); installed before the rename is sent.
    await page.evaluate(`(() => {
      window.storylineLiveShown = null;
      const expected = ${JSON.stringify(name)};
      const seen = () => [...document.querySelectorAll('.card .story-name')].some((element) => element.textContent === expected);
      const observer = new MutationObserver(() => {
        if (!seen()) return;
        observer.disconnect();
        window.storylineLiveShown = Date.now();
      });
      observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    })()`);
    const sent = Date.now();
    const answer = await fetch(`${projectUrl}/stories/${storyId}`, {
      method: 'PUT',
      headers: { 'X-TrackerToken': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    if (!answer.ok) throw new Error(`rename answered ${answer.status}`);
    // A function, not a string: the board's policy forbids evaluating strings in the page.
    const shownAt = () => (globalThis as unknown as { storylineLiveShown: number | null }).storylineLiveShown;
    await page.waitForFunction(shownAt, undefined, { timeout: 30_000 });
    shownMs.push((await page.evaluate(shownAt))! - sent);
  }
  const sorted = [...shownMs].sort((a, b) => a - b);
  console.log(
    `live: another client's rename -> shown on the board (${rounds}): p50 ${percentile(sorted, 50).toFixed(0)} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms (target 1,000 ms)`,
  );
}

function scriptGzipBytes(): number {
  const manifest = JSON.parse(readFileSync(join(BUILT_BOARD_DIR, 'manifest.json'), 'utf8')) as { assets: Array<{ name: string; gzip_bytes: number }> };
  return manifest.assets.filter((asset) => asset.name.endsWith('.js')).reduce((sum, asset) => sum + asset.gzip_bytes, 0);
}
