// Durable upload throughput: 256 KiB files put into the file blob store (hash, temp, fsync, rename,
// fsync of the directory) and received through the multipart reader into it, against the raw rate of
// writing the same bytes to a file with one fsync, measured in one run on one disk, in interleaved
// slices. Sequential puts: the figure is the cost of one acknowledged upload.
import { open, mkdir } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { openFileBlobStore } from '../src/infra/blob-store/file-blob-store.js';
import { receiveUpload } from '../src/infra/blob-store/multipart-upload.js';
import { seededRandom } from '../test/support/seeded-random.js';

const SECONDS_PER_SCENARIO = 4;
/** Each scenario runs in this many slices, interleaved with the others, so a change in disk load hits all alike. */
const ROUNDS = 8;
const FILE_BYTES = 256 * 1024;
const BOUNDARY = '----storyline-bench';

/** Distinct seeded contents per index (so the content-addressed store never deduplicates). */
function contents(random: () => number, index: number): Buffer {
  const bytes = Buffer.alloc(FILE_BYTES);
  for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE(Math.floor(random() * 2 ** 32), i);
  bytes.writeUInt32LE(index, 0);
  return bytes;
}

function multipart(bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** One way of storing a file, timed over several slices interleaved with the others (the disk is shared). */
interface Scenario {
  label: string;
  once(index: number): Promise<void>;
  count: number;
  ms: number;
}

async function measureInterleaved(scenarios: Scenario[]): Promise<void> {
  let index = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of scenarios) {
      const start = performance.now();
      const deadline = start + (SECONDS_PER_SCENARIO * 1000) / ROUNDS;
      while (performance.now() < deadline) {
        await scenario.once(index++);
        scenario.count += 1;
      }
      scenario.ms += performance.now() - start;
    }
  }
  for (const scenario of scenarios) {
    const rate = scenario.count / (scenario.ms / 1000);
    process.stdout.write(`${scenario.label.padEnd(46)} ${rate.toFixed(0).padStart(6)} files/s  (${((rate * FILE_BYTES) / 2 ** 20).toFixed(1)} MiB/s)\n`);
  }
}

const rateOf = (scenario: Scenario) => scenario.count / scenario.ms;

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storyline-upload-bench-'));
  try {
    const random = seededRandom(42);
    const pool = Array.from({ length: 64 }, (_, i) => contents(random, i));
    const pick = (index: number) => {
      const bytes = Buffer.from(pool[index % pool.length]!);
      bytes.writeUInt32LE(index, 4); // distinct content for every put
      return bytes;
    };

    const rawDir = join(dir, 'raw');
    await mkdir(rawDir);
    const store = await openFileBlobStore(join(dir, 'blobs'));
    const scenario = (label: string, once: (index: number) => Promise<void>): Scenario => ({ label, once, count: 0, ms: 0 });
    const raw = scenario('raw write + fsync', async (index) => {
      const file = await open(join(rawDir, String(index)), 'w');
      await file.write(pick(index));
      await file.sync();
      await file.close();
    });
    const put = scenario('file blob store put (durable)', async (index) => {
      await store.put(Readable.from([pick(index)]), { maxBytes: FILE_BYTES });
    });
    const received = scenario('multipart body -> blob store', async (index) => {
      const body = multipart(pick(index));
      await receiveUpload(
        { headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: Readable.from([body]) },
        store,
        { maxFileBytes: FILE_BYTES },
      );
    });
    await measureInterleaved([raw, put, received]);
    process.stdout.write(
      `durable put = ${((rateOf(put) / rateOf(raw)) * 100).toFixed(0)}% of raw write + fsync; ` +
        `multipart upload = ${((rateOf(received) / rateOf(raw)) * 100).toFixed(0)}%\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
