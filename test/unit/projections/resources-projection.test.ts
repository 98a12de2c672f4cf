// The resources projection, given/when/then: given a log, when it is projected (through the runner's
// replay guard, as in production), then the collections hold these documents. Every scenario is
// projected twice to prove that a replay changes nothing.
import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/domain/events.js';
import { guardOp } from '../../../src/infra/projector/replay-guard.js';
import { createMemoryReadStore } from '../../../src/infra/read-store/memory-read-store.js';
import type { Doc, ReadStore } from '../../../src/ports/read-store.js';
import { resourcesProjection } from '../../../src/projections/resources/resources-projection.js';
import { created, deleted, logOf, updated } from './resource-events.js';
import type { ResourceChange } from '../../../src/domain/events.js';
import type { Decision } from '../../../src/domain/decision.js';
import { decideCreateComment } from '../../../src/domain/comment/create-comment.js';
import { decideCreateEpic } from '../../../src/domain/epic/create-epic.js';
import { decideUploadFile } from '../../../src/domain/file-attachment/upload-file.js';
import { decideCreateStory } from '../../../src/domain/story/create-story.js';

import { givenProject, MEMBER } from '../domain/decider-scenario.js';

async function project(store: ReadStore, events: RecordedEvent[]): Promise<void> {
  for (const event of events) {
    for (const { collection, ops } of resourcesProjection.apply(event)) {
      await store.collection(collection).write(ops.map((op) => guardOp(op, event.position)));
    }
  }
}

async function snapshot(store: ReadStore): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const name of await store.listCollections()) out[name] = await store.collection(name).all();
  return out;
}

/** Projects `events`, checks that projecting them again changes nothing, returns the collections. */
async function given(events: RecordedEvent[]): Promise<Record<string, Doc[]>> {
  const store = createMemoryReadStore();
  await project(store, events);
  const once = JSON.stringify(await snapshot(store));
  await project(store, events);
  const twice = JSON.stringify(await snapshot(store));
  expect(twice, 'projecting the same events twice').to.equal(once);
  return JSON.parse(once) as Record<string, Doc[]>;
}

const withoutPositions = (docs: Doc[] | undefined) => (docs ?? []).map(({ _pos, ...doc }) => doc);

const projectCreated = created('project', 10, { name: 'Rocket', week_start_day: 'Monday', created_at: 1 });

describe('resources projection', () => {
  it('stores a created story with its stored values, rank and project, and stamps the project version', async () => {
    const models = await given(
      logOf([
        ['project-10', [projectCreated]],
        ['project-10', [created('story', 100, { name: 'Launch', labels: [{ id: 5 }], label_ids: [5], estimate: null }, 'a0')]],
      ]),
    );
    expect(models.stories).to.deep.equal([{ id: 100, name: 'Launch', label_ids: [5], rank: 'a0', project_id: 10, _pos: 2 }]);
    expect(models.projects).to.deep.equal([{ id: 10, name: 'Rocket', week_start_day: 'Monday', created_at: 1, version: 2, _pos: 2 }]);
  });

  it('sets changed values, unsets values that became null, and moves the rank', async () => {
    const models = await given(
      logOf([
        ['project-10', [projectCreated]],
        ['project-10', [created('story', 100, { name: 'Launch', estimate: 2, description: 'x' }, 'a0')]],
        ['project-10', [updated('story', 100, { estimate: 3, description: null, labels: [] }, 'b0')]],
      ]),
    );
    expect(withoutPositions(models.stories)).to.deep.equal([{ id: 100, name: 'Launch', estimate: 3, rank: 'b0', project_id: 10 }]);
    expect(models.projects![0]!.version).to.equal(3);
  });

  it('deletes, and stamps the version even on events that do not touch the project', async () => {
    const models = await given(
      logOf([
        ['project-10', [projectCreated]],
        ['project-10', [created('label', 7, { name: 'ux' }), created('story', 100, { name: 'a' })]],
        ['project-10', [deleted('label', 7)]],
      ]),
    );
    expect(models.labels).to.deep.equal([]);
    expect(withoutPositions(models.stories)).to.deep.equal([{ id: 100, name: 'a', project_id: 10 }]);
    expect(withoutPositions(models.projects)).to.deep.include.members([{ id: 10, name: 'Rocket', week_start_day: 'Monday', created_at: 1, version: 3 }]);
  });

  it('maps every kind to its collection and ignores id blocks', async () => {
    const models = await given(
      logOf([
        ['project-10', [projectCreated]],
        [
          'project-10',
          [
            created('project_membership', 1, { person_id: 3, role: 'owner' }),
            created('task', 2, { story_id: 100, description: 't' }),
            created('comment', 3, { story_id: 100, text: 'c' }),
            created('epic', 4, { name: 'e', label_id: 7 }),
            created('iteration_override', 5, { number: 2, length: 3 }),
            created('id_block', 6, { next: 100 }),
          ],
        ],
        ['person-3', [created('person', 3, { name: 'Ada', email: 'ada@example.com' })]],
        ['account-8', [created('account', 8, { name: 'Acme' }), created('account_membership', 9, { account_id: 8, person_id: 3 })]],
      ]),
    );
    expect(Object.keys(models).sort()).to.deep.equal(
      ['account_memberships', 'accounts', 'comments', 'epics', 'iteration_overrides', 'people', 'project_memberships', 'projects', 'tasks'].sort(),
    );
    expect(models.tasks![0]).to.deep.include({ story_id: 100, project_id: 10 });
    expect(models.people).to.deep.equal([{ id: 3, name: 'Ada', email: 'ada@example.com', _pos: 3 }]);
    expect(models.account_memberships).to.deep.equal([{ id: 9, account_id: 8, person_id: 3, _pos: 4 }]);
  });

  it('does not give project-wide resources (people) the project of the stream that created them', async () => {
    const models = await given(
      logOf([
        ['project-10', [projectCreated]],
        ['project-10', [created('person', 3, { email: 'new@example.com' }), created('project_membership', 1, { person_id: 3 })]],
      ]),
    );
    expect(models.people).to.deep.equal([{ id: 3, email: 'new@example.com', _pos: 2 }]);
    expect(models.project_memberships![0]).to.deep.include({ project_id: 10 });
  });

  for (const order of ['delete first', 'create first'] as const) {
    it(`keeps a story moved to another project in the target project (${order})`, async () => {
      const leave: [string, ReturnType<typeof deleted>[]] = ['project-10', [deleted('story', 100)]];
      const arrive: [string, ReturnType<typeof created>[]] = ['project-20', [created('story', 100, { name: 'moved' }, 'c0')]];
      const models = await given(
        logOf([
          ['project-10', [projectCreated]],
          ['project-20', [created('project', 20, { name: 'Other' })]],
          ['project-10', [created('story', 100, { name: 'moved', estimate: 1 }, 'a0')]],
          ...(order === 'delete first' ? [leave, arrive] : [arrive, leave]),
          ['project-10', [updated('story', 100, { estimate: 5 })]],
        ]),
      );
      expect(withoutPositions(models.stories)).to.deep.equal([{ id: 100, name: 'moved', rank: 'c0', project_id: 20 }]);
    });
  }

  it('merges several changes of one document in one event into one write', async () => {
    const [, event] = logOf([
      ['project-10', [projectCreated]],
      [
        'project-10',
        [
          updated('project', 10, { name: 'Renamed' }),
          created('story', 100, { name: 'a', estimate: 1 }),
          updated('story', 100, { estimate: 2, name: null }),
        ],
      ],
    ]);
    const writes = resourcesProjection.apply(event!);
    expect(writes).to.deep.equal([
      { collection: 'projects', ops: [{ op: 'update', filter: { id: 10 }, update: { $set: { name: 'Renamed', version: 2 } } }] },
      { collection: 'stories', ops: [{ op: 'replace', filter: { id: 100 }, doc: { id: 100, estimate: 2, project_id: 10 }, upsert: true }] },
    ]);
  });

  it('declares the indexes the API queries need', () => {
    const indexed = Object.fromEntries(resourcesProjection.collections.map(({ name, indexes }) => [name, indexes.map(({ field }) => field)]));
    for (const scoped of ['stories', 'labels', 'tasks', 'comments', 'epics', 'iteration_overrides', 'project_memberships']) {
      expect(indexed[scoped], scoped).to.include('project_id');
    }
    expect(indexed.tasks).to.include('story_id');
    expect(indexed.comments).to.include('story_id');
    expect(indexed.project_memberships).to.include('person_id');
    expect(indexed.account_memberships).to.include('account_id');
    expect(indexed.people).to.include('email');
  });

  it('projects uploads, comments with files, epics and blockers as the deciders record them', async () => {
    const scenario = givenProject();
    const decisions: Decision[] = [];
    const record = (decision: Decision): number => {
      decisions.push(decision);
      return decision.data.changes[0]!.id;
    };
    const file = record(
      scenario.when(decideUploadFile, { filename: 'plan.pdf', content_type: 'application/pdf', size: 3, content_hash: 'c'.repeat(64) }),
    );
    const blocking = record(scenario.when(decideCreateStory, { name: 'first' }));
    const story = record(scenario.when(decideCreateStory, { name: 'second', blockers: [{ description: `#${blocking}` }] }));
    const comment = record(
      scenario.when(
        decideCreateComment,
        { story_id: story, text: 'see file', file_attachment_ids: [file], ext_attachments: [{ title: 'Doc' }] },
        MEMBER,
      ),
    );
    record(scenario.when(decideCreateEpic, { name: 'Launch', comments: [{ text: 'kick-off' }] }));
    const models = await given(
      logOf([
        ['project-7', [created('project', 7, { name: 'Storyline' })]],
        ...decisions.map((decision): [string, ResourceChange[]] => ['project-7', decision.data.changes]),
      ]),
    );
    expect(withoutPositions(models.file_attachments)[0]).to.deep.include({ id: file, project_id: 7, filename: 'plan.pdf', comment_id: comment });
    const comments = withoutPositions(models.comments);
    expect(comments.map((doc) => doc.text)).to.deep.equal(['see file', 'kick-off']);
    expect(comments[0]).to.not.have.property('file_attachments');
    expect((comments[0]!.ext_attachments as Array<{ title: string }>)[0]!.title).to.equal('Doc');
    expect(withoutPositions(models.epics)[0]).to.not.have.any.keys('before_id', 'after_id');
    expect(withoutPositions(models.blockers)).to.have.length(1);
    const stories = withoutPositions(models.stories);
    expect(stories.find((doc) => doc.id === blocking)!.blocked_story_ids).to.deep.equal([story]);
    expect(stories.find((doc) => doc.id === story)!.follower_ids).to.deep.equal(scenario.doc(story).follower_ids);
  });
});
