// State that lives for one response: values several loaders of the same response share (the order
// neighbours `before_id` and `after_id` both need), computed once and dropped with the response. Loaders
// get it in their LoadContext; nothing of it outlives the request.

export class RenderScope {
  private readonly values = new Map<object, Map<string, unknown>>();

  /** The value `compute` gives for (`owner`, `key`), computed once in this response. */
  memo<T>(owner: object, key: string, compute: () => T): T {
    let byKey = this.values.get(owner);
    if (!byKey) this.values.set(owner, (byKey = new Map()));
    if (byKey.has(key)) return byKey.get(key) as T;
    const value = compute();
    byKey.set(key, value);
    return value;
  }
}
