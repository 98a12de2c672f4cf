// Reactions run behind the log in the real composition root: a write is answered while a reaction is
// still holding an earlier event, and the reaction sees the write's event once it is free.
import { expect } from 'chai';
import type { RecordedEvent } from '../../src/domain/events.js';
import type { Reaction } from '../../src/reactions/reaction.js';
import { storylineApp } from './support/storyline-app.js';

describe('reactions in the server', () => {
  it('answers writes without waiting for a reaction, which catches up once released', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: RecordedEvent[] = [];
    const held: Reaction = {
      name: 'held-by-test',
      async handle(events) {
        await gate;
        seen.push(...events);
      },
    };
    const app = await storylineApp({ reactions: [held] });
    try {
      const owner = await app.person('Olga Owner');
      const project = await app.api('POST', '/projects', { as: owner, body: { name: 'Reacting', new_account_name: 'Co' } });
      expect(project.status).to.equal(200);
      const story = await app.api('POST', `/projects/${project.json.id}/stories`, { as: owner, body: { name: 'Written while held' } });
      expect(story.status).to.equal(200);
      expect(seen).to.deep.equal([]);

      release();
      const head = await app.storyline.eventStore.headPosition();
      await app.storyline.reactions.waitFor(head);
      const storyEvent = seen.find((event) => event.type === 'story_create');
      expect(storyEvent?.data.primary_resources[0]).to.include({ kind: 'story', id: story.json.id });
      expect(seen.map((event) => event.position)).to.deep.equal(Array.from({ length: head }, (_, i) => i + 1));
    } finally {
      release();
      await app.close();
    }
  });
});
