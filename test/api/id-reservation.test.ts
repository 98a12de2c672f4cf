// A write that needs more ids than one reserved block holds (a story with 101 new labels) is answered
// at once, and later writes to the project go on: the handler reserves what a decision asks for in one
// block and never decides again without bound.
import { expect } from 'chai';
import { storyWorld, type StoryWorld } from '../support/project-fixture.js';

describe('API: a write needing more ids than a block holds', () => {
  let w: StoryWorld;
  before(async () => {
    w = await storyWorld();
  });
  after(() => w.close());

  it('answers a story POST with 101 new label names, and the project keeps taking writes', async () => {
    const p = await w.project();
    const labels = Array.from({ length: 101 }, (_, n) => `many-${String(n).padStart(3, '0')}`);
    const res = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body: { name: 'Labelled a lot', labels } });
    // A documented limit on label lists (400 invalid_parameter naming labels) is as good as creating them.
    if (res.status === 400) {
      expect(res.json).to.include({ code: 'invalid_parameter' });
      expect(JSON.stringify(res.json.validation_errors)).to.contain('labels');
    } else {
      expect(res.status, res.text).to.equal(200);
      expect(res.json.labels.map((label: { name: string }) => label.name).sort()).to.deep.equal(labels);
      expect(new Set(res.json.label_ids ?? res.json.labels.map((label: { id: number }) => label.id)).size).to.equal(101);
    }
    const next = await w.api('POST', `/projects/${p}/stories`, { as: w.owner, body: { name: 'After', labels: ['one-more'] } });
    expect(next.status, next.text).to.equal(200);
  });
});
