// The rebuild's progress display: figures (rate, ETA), the terminal bar, and JSON lines off a terminal.
import { expect } from 'chai';
import { progressBar, progressDisplay, progressFigures } from '../../../src/infra/cli/rebuild-progress.js';

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream };
}

describe('rebuild progress', () => {
  it('computes the rate and the time left from events read so far', () => {
    expect(progressFigures({ eventsRead: 250_000, total: 1_000_000 }, 5_000)).to.deep.equal({ eventsRead: 250_000, total: 1_000_000, eventsPerSecond: 50_000, etaSeconds: 15 });
    expect(progressFigures({ eventsRead: 0, total: 10 }, 0)).to.include({ eventsPerSecond: 0, etaSeconds: null });
  });

  it('draws a bar with events done / total, rate and ETA', () => {
    expect(progressBar({ eventsRead: 500, total: 1000, eventsPerSecond: 2500, etaSeconds: 1 })).to.equal(
      `[${'#'.repeat(15)}${'.'.repeat(15)}]  50%  500/1,000 events  2,500/s  ETA 1s`,
    );
  });

  it('redraws the bar in place on a terminal and writes throttled JSON lines elsewhere, always the last one', () => {
    let now = 0;
    const tty = fakeStream(true);
    const bar = progressDisplay(tty.stream, () => now);
    now = 100;
    bar.update({ eventsRead: 10, total: 100 });
    now = 150;
    bar.update({ eventsRead: 20, total: 100 }); // within 200 ms: skipped
    now = 400;
    bar.update({ eventsRead: 100, total: 100 });
    bar.finish();
    expect(tty.written).to.have.length(3);
    expect(tty.written[0]).to.match(/^\r\[/);
    expect(tty.written.at(-1)).to.equal('\n');

    const pipe = fakeStream(false);
    const lines = progressDisplay(pipe.stream, () => now);
    now = 1000;
    lines.update({ eventsRead: 10, total: 100 });
    now = 1500;
    lines.update({ eventsRead: 50, total: 100 }); // within a second: skipped
    lines.update({ eventsRead: 100, total: 100 }); // the end is always shown
    lines.finish();
    expect(pipe.written.map((line) => JSON.parse(line).eventsRead)).to.deep.equal([10, 100]);
    expect(JSON.parse(pipe.written[1]!)).to.include({ message: 'rebuild progress', total: 100, etaSeconds: 0 });
  });
});
