// A bound on work in flight per key (webhook deliveries per receiving host): at most `perKey` tasks of a
// key run at once, the others wait in arrival order. Each webhook has at most one delivery in flight,
// so the waiting tasks are bounded by the webhooks.
export class HostSlots {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly perKey: number) {
    if (!(Number.isSafeInteger(perKey) && perKey > 0)) throw new Error('perKey must be a positive integer');
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(key);
    try {
      return await task();
    } finally {
      this.release(key);
    }
  }

  private acquire(key: string): Promise<void> {
    const busy = this.running.get(key) ?? 0;
    if (busy < this.perKey) {
      this.running.set(key, busy + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push(resolve);
      this.waiting.set(key, queue);
    });
  }

  private release(key: string): void {
    const queue = this.waiting.get(key);
    const next = queue?.shift();
    if (next) {
      if (queue!.length === 0) this.waiting.delete(key);
      next(); // the slot passes to the next task as it is
      return;
    }
    const busy = (this.running.get(key) ?? 1) - 1;
    if (busy > 0) this.running.set(key, busy);
    else this.running.delete(key);
  }
}
