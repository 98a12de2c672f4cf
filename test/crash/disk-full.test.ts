// Disk full, on a real 4 MiB tmpfs: once the volume is full, writes answer 507 `storage_full` with an
// error hash saying nothing was stored, reads go on, and writes work again by themselves once space
// returns. The reactions behind the log (notifications, project snapshots, thumbnails) that cannot store
// their work or their checkpoint show as failing in /health and retry, then catch up by themselves once
// space returns: every acknowledged write notified once, none twice, every image's thumbnails made, no
// restart. Skipped, with the reason, where this machine cannot mount a tmpfs.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { openStoryline, type Storyline } from '../../src/infra/composition.js';
import { configFromEnv } from '../../src/infra/config.js';
import { createLog } from '../../src/infra/log.js';
import { startServer, type TestServer } from '../api/support/http-client.js';
import { mountSmallVolume, type SmallVolume } from './small-volume.js';

// The reactions retry a failing step after 100 ms, doubling up to 1 s instead of the default's 30 s, so
// that recovery once space returns is seen within a second (and not a back-off later). Not faster: a
// reaction retrying as often as the test writes takes the room each step frees before a write can.
const REACTION_BACK_OFF = { initialMs: 100, maxMs: 1_000 };
/** How long a part waits for the reactions before it fails saying where each one stands. */
const REACTIONS_DEADLINE_MS = 30_000;

/** Resolves when the reactions of `storyline` reach `position`; rejects with each one's status past the deadline. */
async function reactionsReach(storyline: Storyline, position: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the reactions did not reach position ${position} within ${REACTIONS_DEADLINE_MS} ms: ${JSON.stringify(storyline.reactions.status())}`)),
      REACTIONS_DEADLINE_MS,
    );
  });
  try {
    await Promise.race([storyline.reactions.waitFor(position), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Fills the volume until the disk refuses more: first a file of `reserveBytes` (room that is certain to
 * return when it is removed, whatever the writes meanwhile took of what the filler gave back), then the
 * filler. Returns both paths.
 */
function fillVolume(dir: string, reserveBytes = 0): { filler: string; reserve: string } {
  const reserve = join(dir, 'reserve');
  writeFileSync(reserve, Buffer.alloc(reserveBytes, 1));
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let written = 0; written < 64 * 1024 * 1024; written += chunk.length) writeSync(fd, chunk);
    throw new Error('the volume never filled up');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return { filler: path, reserve };
}

describe('disk full', function () {
  this.timeout(120_000);
  let volume: SmallVolume;
  let storyline: Storyline;
  let server: TestServer;
  const logLines: Record<string, unknown>[] = [];

  before(async function () {
    const mounted = mountSmallVolume(4 * 1024 * 1024);
    if ('reason' in mounted) {
      this.skip(); // reason: mounted.reason
      return;
    }
    volume = mounted.volume;
    const config = configFromEnv({ STORYLINE_DATA: join(volume.path, 'data'), STORYLINE_RESPONSE_CACHE_ENTRIES: '0' });
    storyline = await openStoryline(config, createLog('info', (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>)), {
      reactionBackOff: REACTION_BACK_OFF,
    });
    server = await startServer(storyline.app);
    storyline.reactions.start();
  });
  // a test that failed while the volume was full leaves room for the next one
  afterEach(() => {
    if (!volume) return;
    for (const file of ['filler', 'reserve']) rmSync(join(volume.path, file), { force: true });
  });
  after(async () => {
    await server?.close();
    await storyline?.close();
    volume?.unmount();
  });

  it('answers writes 507 storage_full, keeps serving reads, and recovers when space returns', async () => {
    const owner = await storyline.addPerson({ email: 'owner@example.com', name: 'Owner', password: 'long-enough-pw' });
    const as = { 'X-TrackerToken': owner.api_token };
    const api = (method: string, path: string, body?: unknown) => server.request(method, `/services/v5${path}`, { headers: as, ...(body ? { body } : {}) });
    const project = await api('POST', '/projects', { name: 'Full', new_account_name: 'Disk' });
    expect(project.status, project.text).to.equal(200);
    const stories = `/projects/${project.json.id}/stories`;
    expect((await api('POST', stories, { name: 'before the disk filled' })).status).to.equal(200);

    const { filler } = fillVolume(volume.path);
    const description = 'x'.repeat(20_000);
    let refused = await api('POST', stories, { name: 'no room', description });
    for (let attempt = 0; attempt < 20 && refused.status === 200; attempt++) refused = await api('POST', stories, { name: 'no room', description });
    expect(refused.status, refused.text).to.equal(507);
    expect(refused.json).to.include({ kind: 'error', code: 'storage_full' });
    expect(refused.json.general_problem).to.contain('cannot store the change');

    const read = await api('GET', stories);
    expect(read.status).to.equal(200);
    const names = read.json.map((story: { name: string }) => story.name);
    expect(names).to.include('before the disk filled');

    rmSync(filler);
    const after = await api('POST', stories, { name: 'after space returned', description });
    expect(after.status, after.text).to.equal(200);
    const reread = await api('GET', stories);
    expect(reread.json.length).to.equal(names.length + 1);
  });

  it("retries the reactions whose checkpoint or work cannot be stored, shows them failing in /health, and catches up once space returns: nothing lost, nothing twice", async () => {
    const owner = await storyline.addPerson({ email: 'lead@example.com', name: 'Lead', password: 'long-enough-pw' });
    const bob = await storyline.addPerson({ email: 'bob@example.com', name: 'Bob', password: 'long-enough-pw' });
    const api = (as: string, method: string, path: string, body?: unknown) =>
      server.request(method, `/services/v5${path}`, { headers: { 'X-TrackerToken': as }, ...(body ? { body } : {}) });
    const project = (await api(owner.api_token, 'POST', '/projects', { name: 'Reactions', new_account_name: 'Full' })).json.id as number;
    expect((await api(owner.api_token, 'POST', `/projects/${project}/memberships`, { person_id: bob.id, role: 'member' })).status).to.equal(200);
    // each story Bob is made owner of notifies him once (ownership)
    // Each write's name, by what its answer said: stored (200, or 507 saying the change was stored but
    // cannot show yet) or refused with nothing changed.
    const stored: string[] = [];
    const refused: string[] = [];
    const create = async (name: string): Promise<void> => {
      const res = await api(owner.api_token, 'POST', `/projects/${project}/stories`, { name, owner_ids: [bob.id] });
      if (res.status === 200) stored.push(name);
      else {
        expect(res.status, res.text).to.equal(507);
        expect(res.json.code).to.equal('storage_full');
        const wasStored = res.json.general_problem.includes('The change was stored');
        if (!wasStored) expect(res.json.general_problem).to.contain('Nothing was changed');
        (wasStored ? stored : refused).push(name);
      }
    };
    await create('before the disk filled');
    await reactionsReach(storyline, await storyline.eventStore.headPosition());

    // The disk filled, then given back a few KB at a time: each write takes some, the reactions behind
    // it find none left, until one of them fails. The reserve returns at the end whatever the writes took
    // meanwhile of what the filler gave back (the read models' WAL keeps every page a commit wrote until
    // it reaches a checkpoint's 4 MB, which this volume cannot hold).
    const { filler, reserve } = fillVolume(volume.path, 512 * 1024);
    const failing = () => storyline.reactions.status().filter((reaction) => reaction.failing !== null);
    const steps = new Set<string>();
    const storedBefore = stored.length;
    let writes = 0;
    // Until both are seen: a reaction failing to save its checkpoint and a write stored meanwhile (which
    // comes first depends on how much room each truncation leaves the pages). The room given back doubles
    // every 25 writes, so the filler is gone within the bound.
    const giveUpAt = Date.now() + 60_000;
    for (; writes < 300 && Date.now() < giveUpAt && !(steps.has('checkpoint') && stored.length > storedBefore); writes++) {
      for (const reaction of failing()) steps.add(reaction.failing!.step);
      truncateSync(filler, Math.max(statSync(filler).size - 8 * 1024 * 2 ** Math.floor(writes / 25), 0));
      await create(`written on a full disk ${writes}`);
      await new Promise((resolve) => setTimeout(resolve, 30)); // the reactions' turn
    }
    const seen = `after ${writes} writes: ${JSON.stringify(storyline.reactions.status())}`;
    expect([...steps], `a reaction fails to save its checkpoint (${seen})`).to.include('checkpoint');
    expect(stored.length, `writes were stored meanwhile (${seen})`).to.be.above(storedBefore);
    const health = (await server.request('GET', '/health')).json;
    expect(health.status).to.equal('degraded');
    const failingInHealth = health.reactions.filter((reaction: { failing: unknown }) => reaction.failing !== null);
    expect(failingInHealth).to.not.deep.equal([]);
    for (const reaction of failingInHealth) {
      expect(reaction.failing.error).to.contain('disk is full');
      expect(health.reasons).to.include(`reaction ${reaction.name} fails to ${reaction.failing.step} since ${reaction.failing.since} (${reaction.failing.attempts} attempts): ${reaction.failing.error}`);
    }

    rmSync(filler);
    rmSync(reserve);
    await create('after space returned');
    await reactionsReach(storyline, await storyline.eventStore.headPosition());
    const recovered = (await server.request('GET', '/health')).json;
    expect(recovered.status, JSON.stringify(recovered)).to.equal('ok');
    expect(recovered.reactions.every((reaction: { failing: unknown; behind: number }) => reaction.failing === null && reaction.behind === 0)).to.equal(true);
    // Every story answered stored is there, none answered refused, and Bob was told of each once.
    const listed = (await api(owner.api_token, 'GET', `/projects/${project}/stories?limit=500`)).json as { id: number; name: string }[];
    expect(listed.map((story) => story.name)).to.have.members(stored);
    expect(refused, 'some writes were refused').to.not.deep.equal([]);
    const existing = listed.map((story) => story.id).sort((a, b) => a - b);
    const notified = await api(bob.api_token, 'GET', '/my/notifications?limit=1000');
    expect(notified.status).to.equal(200);
    const about = notified.json.filter((n: { project: { id: number } }) => n.project.id === project).map((n: { story: { id: number } }) => n.story.id);
    expect(about.sort((a: number, b: number) => a - b)).to.deep.equal(existing);
    expect(logLines.filter((line) => line['message'] === 'reaction worker ended')).to.deep.equal([]);
  });

  it('retries the thumbnails of an image attached before the disk filled, shows them failing in /health, and makes them once space returns', async () => {
    // A volume and data directory of its own (the earlier tests' files leave this one no room to start),
    // opened twice: the first time its reactions run and catch up (their indexes made), the second the
    // image is attached before they start, on a disk then filled.
    const mounted = mountSmallVolume(4 * 1024 * 1024);
    if ('reason' in mounted) throw new Error(mounted.reason);
    const own = mounted.volume;
    try {
      await attachOnAFullDisk(own);
    } finally {
      own.unmount();
    }
  });
});

/** The thumbnails test's body, on its own volume. */
async function attachOnAFullDisk(own: SmallVolume): Promise<void> {
  const config = configFromEnv({ STORYLINE_DATA: join(own.path, 'thumbnails'), STORYLINE_RESPONSE_CACHE_ENTRIES: '0' });
  const first = await openStoryline(config, undefined, { reactionBackOff: REACTION_BACK_OFF });
  first.reactions.start();
  const owner = await first.addPerson({ email: 'pictures@example.com', name: 'Pictures', password: 'long-enough-pw' });
  await reactionsReach(first, await first.eventStore.headPosition());
  await first.close();

  const lines: Record<string, unknown>[] = [];
  const again = await openStoryline(config, createLog('info', (line) => void lines.push(JSON.parse(line) as Record<string, unknown>)), {
    reactionBackOff: REACTION_BACK_OFF,
  });
  const served = await startServer(again.app);
  try {
    const api = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; rawBody?: Buffer } = {}) =>
      served.request(method, `/services/v5${path}`, { ...options, headers: { 'X-TrackerToken': owner.api_token, ...options.headers } });
    const project = (await api('POST', '/projects', { body: { name: 'Pictures', new_account_name: 'Images' } })).json.id as number;
    const story = (await api('POST', `/projects/${project}/stories`, { body: { name: 'with a picture' } })).json.id as number;
    // noise: its renditions are tens and hundreds of KB, which a full disk cannot take
    const side = 600;
    const image = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
    const boundary = 'disk-full-boundary';
    const upload = await api('POST', `/projects/${project}/uploads`, {
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      rawBody: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="noise.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
        image,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    expect(upload.status, upload.text).to.equal(200);
    const comment = await api('POST', `/projects/${project}/stories/${story}/comments`, { body: { text: 'look', file_attachments: [upload.json] } });
    expect(comment.status, comment.text).to.equal(200);
    const fileAsShown = async () =>
      (await api('GET', `/projects/${project}/stories/${story}/comments?fields=file_attachments`)).json[0].file_attachments[0] as Record<string, unknown>;

    const { filler } = fillVolume(own.path);
    again.reactions.start();
    const thumbnails = () => again.reactions.status().find((reaction) => reaction.name === 'thumbnails')!;
    for (let polls = 0; polls < 500 && (thumbnails().failing?.attempts ?? 0) < 2; polls++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(thumbnails().failing, 'the thumbnails reaction fails to store the renditions, and retries').to.deep.include({ step: 'handle' });
    const health = (await served.request('GET', '/health')).json;
    expect(health.status).to.equal('degraded');
    const shown = health.reactions.find((reaction: { name: string }) => reaction.name === 'thumbnails');
    expect(shown.behind).to.be.above(0);
    expect(shown.failing).to.include({ step: 'handle' });
    expect(shown.failing.error).to.match(/ENOSPC|no space left/);
    expect(await fileAsShown()).to.include({ thumbnailable: false });

    rmSync(filler);
    await reactionsReach(again, await again.eventStore.headPosition());
    const recovered = (await served.request('GET', '/health')).json;
    expect(recovered.status, JSON.stringify(recovered)).to.equal('ok');
    const file = await fileAsShown();
    expect(file).to.include({ thumbnailable: true, width: side, height: side });
    const rendition = await served.request('GET', `/file_attachments/${upload.json.id}/big`, { headers: { 'X-TrackerToken': owner.api_token } });
    expect(rendition.status).to.equal(200);
    expect(rendition.headers['content-type']).to.equal('image/jpeg');
    expect(lines.filter((line) => line['message'] === 'reaction worker ended')).to.deep.equal([]);
  } finally {
    await served.close();
    await again.close();
  }
}
