// How `storyline rebuild-projections` shows its progress on standard error: a bar redrawn in place on
// a terminal (events done / total, rate, ETA), one JSON line per second otherwise (logs, pipes).
import type { RebuildProgress } from '../projector/projector-runner.js';

export interface ProgressFigures {
  eventsRead: number;
  total: number;
  eventsPerSecond: number;
  /** Seconds left at the current rate; null before any rate is known. */
  etaSeconds: number | null;
}

export function progressFigures({ eventsRead, total }: RebuildProgress, elapsedMs: number): ProgressFigures {
  const eventsPerSecond = elapsedMs > 0 ? Math.round((eventsRead * 1000) / elapsedMs) : 0;
  const etaSeconds = eventsPerSecond > 0 ? Math.ceil(Math.max(total - eventsRead, 0) / eventsPerSecond) : null;
  return { eventsRead, total, eventsPerSecond, etaSeconds };
}

const BAR_WIDTH = 30;

/** One line of the terminal bar, e.g. `[#########.....]  62%  620,000/1,000,000 events  48,210/s  ETA 8s`. */
export function progressBar(figures: ProgressFigures): string {
  const share = figures.total > 0 ? Math.min(figures.eventsRead / figures.total, 1) : 1;
  const filled = Math.round(share * BAR_WIDTH);
  const count = (value: number) => value.toLocaleString('en-US');
  const eta = figures.etaSeconds === null ? 'ETA ?' : `ETA ${figures.etaSeconds}s`;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${count(figures.eventsRead)}/${count(figures.total)} events  ${count(figures.eventsPerSecond)}/s  ${eta}`;
}

export interface ProgressDisplay {
  update(progress: RebuildProgress): void;
  /** Ends the display (the bar's line is closed). */
  finish(): void;
}

/** Writes progress to `stream`: a bar when it is a terminal, JSON lines otherwise; throttled. */
export function progressDisplay(stream: NodeJS.WriteStream, now: () => number = () => performance.now()): ProgressDisplay {
  const started = now();
  const terminal = stream.isTTY === true;
  const intervalMs = terminal ? 200 : 1000;
  let shown = -Infinity;
  let drawn = false;
  return {
    update(progress) {
      const at = now();
      if (at - shown < intervalMs && progress.eventsRead < progress.total) return;
      shown = at;
      const figures = progressFigures(progress, at - started);
      if (terminal) {
        stream.write(`\r${progressBar(figures)}`);
        drawn = true;
      } else stream.write(`${JSON.stringify({ message: 'rebuild progress', ...figures })}\n`);
    },
    finish() {
      if (drawn) stream.write('\n');
    },
  };
}
