// A damaged page inside events.sqlite, as a failing disk leaves it: the server still starts and listens,
// its integrity check (quick_check, after listening) finds the damage and /health says `degraded` naming
// the file; every write and every activity read that meets the damaged page answers 503
// `component_unavailable` with the error hash, never 500; reads of the read models are still served;
// and the damage is logged once, not once per request.
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { storylineApp } from '../api/support/storyline-app.js';
import { serve, stop, stopAll, type Served } from './storyline-process.js';

/** Overwrites the cell pointers of a leaf page of the events table in the middle of the file; returns its number. */
function damageEventsPage(file: string): number {
  const db = new Database(file);
  const leaves = db.prepare<[], number>("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno").pluck().all();
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.close();
  expect(leaves.length, 'the events table spans many pages').to.be.above(20);
  const page = leaves[Math.floor(leaves.length / 2)]!;
  const fd = openSync(file, 'r+');
  try {
    // past the page's 8-byte leaf header: its cell pointer array, now pointing nowhere
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, (page - 1) * pageSize + 8);
  } finally {
    closeSync(fd);
  }
  return page;
}

async function until<T>(what: string, probe: () => T | undefined, withinMs = 30_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a damaged page in events.sqlite', function () {
  this.timeout(120_000);
  let root: string;
  let dataDir: string;
  let token: string;
  let projectId: number;
  let storyIds: number[];
  let server: Served;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'storyline-damaged-'));
    dataDir = join(root, 'data');
    const app = await storylineApp({ dataDir });
    try {
      const owner = await app.person('Olivia Owner');
      token = owner.token;
      projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Damaged', new_account_name: 'Disk' } })).json.id;
      storyIds = [];
      // ~10 KB a story: its event's row spills into overflow pages, so the table spans many pages
      for (let i = 0; i < 240; i++) {
        const created = await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name: `Story ${i}`, description: `${i} `.repeat(2500) } });
        expect(created.status, created.text).to.equal(200);
        storyIds.push(created.json.id);
      }
    } finally {
      await app.close();
    }
    damageEventsPage(join(dataDir, 'events.sqlite'));
    server = await serve({ STORYLINE_DATA: dataDir, STORYLINE_ACTIVITY_WINDOW_MONTHS: '0' });
  });
  after(async () => {
    await stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  const api = (method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${server.port}/services/v5${path}`, {
      method,
      headers: { 'X-TrackerToken': token, 'Content-Type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  it('starts and listens, then its integrity check finds the damage: /health answers 200 degraded naming events.sqlite', async () => {
    const checked = await until('the integrity check', () => server.logs.find((entry) => entry['message'] === 'log integrity checked'));
    expect(checked).to.include({ file: 'events.sqlite', check: 'quick_check', result: 'damaged' });
    expect(checked['ms']).to.be.a('number');
    const listening = server.logs.findIndex((entry) => entry['message'] === 'listening');
    expect(listening).to.be.below(server.logs.indexOf(checked));

    const response = await fetch(`http://127.0.0.1:${server.port}/health`);
    expect(response.status).to.equal(200);
    const health = (await response.json()) as Record<string, any>;
    expect(health['status']).to.equal('degraded');
    expect(health['reasons'][0]).to.match(/^events\.sqlite is damaged or its disk fails \(/);
    expect(health['log']['integrity_check']).to.include({ state: 'damaged' });
    expect(health['storage_faults'][0]).to.include({ file: 'events.sqlite' });
  });

  it('answers writes 503 component_unavailable with the error hash, and reads of the read models 200', async () => {
    for (const [method, path, body] of [
      ['POST', `/projects/${projectId}/stories`, { name: 'cannot be stored' }],
      ['PUT', `/projects/${projectId}/stories/${storyIds[0]}`, { name: 'renamed' }],
      ['POST', `/projects/${projectId}/labels`, { name: 'ops' }],
    ] as const) {
      const write = await api(method, path, body);
      expect(write.status, `${method} ${path}`).to.equal(503);
      const refusal = (await write.json()) as Record<string, string>;
      expect(refusal).to.include({ kind: 'error', code: 'component_unavailable' });
      expect(refusal['general_problem']).to.contain('data files is damaged');
    }
    const stories = await api('GET', `/projects/${projectId}/stories?limit=500`);
    expect(stories.status).to.equal(200);
    expect(((await stories.json()) as unknown[]).length).to.equal(storyIds.length);
    expect((await api('GET', `/projects/${projectId}/stories/${storyIds[120]}`)).status).to.equal(200);
    expect((await api('GET', `/projects/${projectId}`)).status).to.equal(200);
  });

  it('answers the activity pages over the damaged page 503 with the hash, the others 200, never 500; logs the damage once', async () => {
    const statuses: number[] = [];
    for (let offset = 0; offset <= storyIds.length; offset += 20) {
      const page = await api('GET', `/projects/${projectId}/activity?limit=20&offset=${offset}`);
      statuses.push(page.status);
      if (page.status === 503) expect(await page.json()).to.include({ kind: 'error', code: 'component_unavailable' });
    }
    expect(statuses).to.include(503).and.include(200);
    expect(statuses.every((status) => status === 200 || status === 503), String(statuses)).to.equal(true);
    expect(server.logs.filter((entry) => entry['status'] === 500)).to.deep.equal([]);
    const told = server.logs.filter((entry) => entry['level'] === 'error');
    expect(told.map((entry) => entry['message'])).to.deep.equal(['a data file is damaged or its disk fails: requests that need it answer 503 until it is restored']);
    expect(told[0]).to.include({ file: 'events.sqlite' });
    expect(await stop(server)).to.equal(0);
  });
});
