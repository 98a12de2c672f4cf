// `npm run bench`: every benchmark, one after the other, in one process run. Figures are printed as
// they are measured; compare ratios within one run, never absolute numbers across machines.
import { run as appendBench } from './append-bench.js';
import { run as replayBench } from './replay-bench.js';
import { run as httpBench } from './http-bench.js';
import { run as activityBench } from './activity-bench.js';
import { run as iterationsBench } from './iterations-bench.js';
import { run as searchBench } from './search-bench.js';
import { run as searchCostBench } from './search-cost-bench.js';
import { run as uploadBench } from './upload-bench.js';
import { run as verifyBench } from './verify-bench.js';
import { run as diskBench } from './disk-bench.js';
import { run as timeTravelBench } from './time-travel-bench.js';
import { run as timeTravelLoadBench } from './time-travel-load-bench.js';
import { run as streamBench } from './stream-bench.js';
import { run as webhookBench } from './webhook-bench.js';
import { run as boardBench } from './board-bench.js';

const benches: Record<string, () => Promise<void>> = {
  append: appendBench,
  replay: replayBench,
  http: httpBench,
  activity: activityBench,
  iterations: iterationsBench,
  search: searchBench,
  'search-cost': searchCostBench,
  upload: uploadBench,
  verify: verifyBench,
  disk: diskBench,
  'time-travel': timeTravelBench,
  'time-travel-load': timeTravelLoadBench,
  streams: streamBench,
  webhooks: webhookBench,
  board: boardBench,
};

const only = process.argv.slice(2);
for (const [name, run] of Object.entries(benches)) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stdout.write(`\n== ${name} ==\n`);
  await run();
}
