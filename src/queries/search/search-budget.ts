// The work budget of one search request (the read store port's ReadBudget): at most MAX_SEARCH_WORK
// units across every read the search makes (text index lookups, the stories and epics it evaluates),
// beyond which the search answers 400 `invalid_parameter` on the caller's parameter, saying the query is
// too costly; and a turn of the event loop after every WORK_SLICE units or TURN_MS milliseconds, whichever
// comes first, so that one search never holds the serving thread for long whatever its size or the
// machine's speed (other requests are answered between its slices). The time bound covers work whose
// units understate it (a SQLite statement reading more index entries than it returns, a slow CPU).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { invalidField } from '../../domain/errors.js';
import { MAX_SEARCH_WORK } from '../../domain/search/search-limits.js';
import type { ReadBudget } from '../../ports/read-store.js';

/**
 * Units between two turns of the event loop: a few milliseconds of evaluation in the SQLite read store
 * (documents parsed from the file cost the most per unit).
 */
export const WORK_SLICE = 40_000;

/** Milliseconds after which the next charge gives the event loop a turn, however few units were charged. */
export const TURN_MS = 5;

export class SearchBudget implements ReadBudget {
  private spent = 0;
  private sinceTurn = 0;
  private lastTurn = performance.now();

  constructor(
    /** The request parameter the query came in (`query`, `filter`), named by the 400. */
    private readonly parameter: string,
    private readonly allowance: number = MAX_SEARCH_WORK,
    private readonly slice: number = WORK_SLICE,
  ) {}

  afford(units: number): void {
    if (this.spent + units > this.allowance) {
      throw invalidField(
        this.parameter,
        `This search is too costly to run: it would read more than ${this.allowance.toLocaleString('en-US')} index entries and story conditions. ` +
          'Use fewer terms, or more specific ones (a label, a state, an owner, a rarer word).',
      );
    }
  }

  async charge(units: number): Promise<void> {
    this.afford(units);
    this.spent += units;
    this.sinceTurn += units;
    await this.turnIfDue();
  }

  /**
   * A turn of the event loop when WORK_SLICE units were charged or TURN_MS passed since the last one:
   * also called between the steps of a search that read nothing (compiling its filter), so that they
   * and the reads around them do not run as one long stretch.
   */
  async turnIfDue(): Promise<void> {
    if (this.sinceTurn < this.slice && performance.now() - this.lastTurn < TURN_MS) return;
    await nextTurn();
    this.sinceTurn = 0;
    this.lastTurn = performance.now();
  }
}
