// The snapshot builder's turns: one build at a time, a command's build before the sweep's waiting ones,
// and the close as the last turn: the builds still waiting when it is asked for never run.
import { expect } from 'chai';
import { BuildTurns, TurnsClosed } from '../../../src/infra/decision-state-snapshots/build-turns.js';

/** A build that runs until released, recording when it starts. */
function heldBuild(ran: string[], name: string): { build: () => Promise<string>; release(): void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    build: async () => {
      ran.push(name);
      await released;
      return name;
    },
    release,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('snapshot builder turns', () => {
  it('runs one build at a time, a waiting urgent build before a waiting background one', async () => {
    const turns = new BuildTurns();
    const ran: string[] = [];
    const first = heldBuild(ran, 'sweep 1');
    const running = turns.take(false, first.build);
    const background = turns.take(false, async () => (ran.push('sweep 2'), 'sweep 2'));
    const urgent = turns.take(true, async () => (ran.push('command'), 'command'));
    await settle();
    expect(ran).to.deep.equal(['sweep 1']);
    first.release();
    expect(await Promise.all([running, background, urgent])).to.deep.equal(['sweep 1', 'sweep 2', 'command']);
    expect(ran).to.deep.equal(['sweep 1', 'command', 'sweep 2']);
  });

  it('runs the close after the build under way and refuses the builds waiting behind it and every later one', async () => {
    const turns = new BuildTurns();
    const ran: string[] = [];
    const command = heldBuild(ran, 'command');
    const running = turns.take(true, command.build);
    // The sweep's next build waits behind the command's when the close is asked for.
    const waiting = turns.take(false, async () => (ran.push('sweep'), 'sweep')).catch((error: unknown) => error);
    const closed = turns.last(async () => (ran.push('close'), 'closed'));
    expect(turns.closing).to.equal(true);
    expect(await waiting).to.be.instanceOf(TurnsClosed);
    await settle();
    expect(ran, 'the close waits for the build under way').to.deep.equal(['command']);
    command.release();
    expect(await running).to.equal('command');
    expect(await closed).to.equal('closed');
    const later = await turns.take(true, async () => (ran.push('after'), 'after')).catch((error: unknown) => error);
    expect(later).to.be.instanceOf(TurnsClosed);
    expect(ran).to.deep.equal(['command', 'close']);
  });

  it('closes at once when no build is under way', async () => {
    const turns = new BuildTurns();
    expect(await turns.last(async () => 'closed')).to.equal('closed');
  });
});
