// Waits on a condition of the system under test (a stream slot freed, a webhook marked failing), looking
// again every few milliseconds: tests wait on what they expect, never on a fixed sleep.
export async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
