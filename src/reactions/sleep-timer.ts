// The sleep of a worker behind the log (a reaction worker, a webhook's delivery worker): for a time (a
// back-off) or, without one, until new events are there; `wakeIdle()` ends only the latter (new events
// do not cut a back-off short), `interrupt()` ends either (a stop, a resumed webhook).
export class SleepTimer {
  private sleeper: { resolve(): void; timer: NodeJS.Timeout | null } | null = null;

  /** Sleeps `ms` (null: until woken). */
  sleep(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = {
        timer: ms === null ? null : setTimeout(() => sleeper.resolve(), ms),
        resolve: () => {
          if (sleeper.timer) clearTimeout(sleeper.timer);
          if (this.sleeper === sleeper) this.sleeper = null;
          resolve();
        },
      };
      this.sleeper = sleeper;
    });
  }

  /** Ends a sleep that waits for new events (not a timed one). */
  wakeIdle(): void {
    if (this.sleeper && this.sleeper.timer === null) this.sleeper.resolve();
  }

  /** Ends the current sleep, whatever it waits for. */
  interrupt(): void {
    this.sleeper?.resolve();
  }
}
