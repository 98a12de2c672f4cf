// The current iteration's lookup reads the project's earliest acceptance before its start from the
// `acceptance_key` index in order: one document, however many stories were accepted before the start,
// and none of another project's.
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import { openSqliteReadStore } from '../../../src/infra/read-store/sqlite-read-store.js';
import { projectStartTime } from '../../../src/domain/project/project-calendar.js';
import type { Doc, ReadStore } from '../../../src/ports/read-store.js';
import { acceptanceKey, iterationStoriesProjection, ITERATION_STORIES } from '../../../src/projections/iterations/iteration-stories-projection.js';
import { loadTimeline, type IterationReads } from '../../../src/queries/iterations/iteration-timeline.js';
import { seededRandom } from '../../support/seeded-random.js';
import { typedReadModels } from '../../../src/projections/documents.js';

const DAY = 86_400_000;
const START = Date.UTC(2024, 5, 3); // a Monday
const project: Doc = { id: 1, name: 'Late start', start_date: '2024-06-03', time_zone: { kind: 'time_zone', olson_name: 'Etc/UTC', offset: '+00:00' }, week_start_day: 'Monday', iteration_length: 1 };

async function seeded(store: ReadStore): Promise<{ reads: IterationReads; earliest: number }> {
  await store.collection('projects').write([{ op: 'insert', doc: project }, { op: 'insert', doc: { ...project, id: 2 } }]);
  const stories = store.collection(ITERATION_STORIES);
  await stories.ensureIndexes(iterationStoriesProjection.collections[0]!.indexes!);
  const random = seededRandom(20261123);
  const docs: Doc[] = [];
  let earliest = Infinity;
  for (let i = 1; i <= 600; i++) {
    const projectId = i % 2 === 0 ? 1 : 2;
    // Project 2's acceptances reach further back: the lookup must not take one of them.
    const accepted = START - Math.floor(random() * (projectId === 1 ? 200 : 400) * DAY) - 1000;
    if (projectId === 1) earliest = Math.min(earliest, accepted);
    docs.push({ id: i, project_id: projectId, current_state: 'accepted', story_type: 'feature', estimate: 1, created_at: accepted, accepted_at: accepted, rank: `S${i}`, plan_key: 'x', acceptance_key: acceptanceKey(projectId, accepted) });
  }
  await stories.write(docs.map((doc) => ({ op: 'insert' as const, doc })));
  const read = typedReadModels((name) => store.collection(name));
  const reads: IterationReads = {
    projects: read('projects'),
    stories: read('stories'),
    iterationOverrides: read('iteration_overrides'),
    iterationStories: read('iteration_stories'),
    labels: read('labels'),
  };
  return { reads, earliest };
}

describe('the earliest acceptance before a project start', () => {
  it('moves the start back to the earliest acceptance of the project, reading one story (memory store)', async () => {
    const store = createMemoryReadStore();
    const { reads, earliest } = await seeded(store);
    const examined = store.collection(ITERATION_STORIES) as unknown as { documentsExamined: number };
    const before = examined.documentsExamined;
    const timeline = await loadTimeline(reads, 1, START + 30 * DAY);
    expect(examined.documentsExamined - before).to.equal(1);
    expect(timeline.startTime).to.equal(projectStartTime(project, earliest));
    expect(timeline.startTime).to.be.below(START - 100 * DAY);
    await store.close();
  });

  it('reads one story in the SQLite store too, and finds the same start', async () => {
    const store = openSqliteReadStore({ path: ':memory:' });
    const { reads, earliest } = await seeded(store);
    store.cache.clear();
    const timeline = await loadTimeline(reads, 1, START + 30 * DAY);
    expect(timeline.startTime).to.equal(projectStartTime(project, earliest));
    expect(store.cache.size, 'documents parsed: the project and one story').to.equal(2);
    await store.close();
  });
});
