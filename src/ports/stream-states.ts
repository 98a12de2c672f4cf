// The port: the states commands decide on, one per stream, folded from its events. Where they are kept
// between commands (a bounded cache), where a load starts from (a decision-state snapshot), and when a
// snapshot is stored are the adapter's business (infra/stream-states/cached-stream-states.ts); the
// command handler only loads, decides, appends and hands back the state it evolved.
// Not safe for concurrent use on one stream: the caller serializes each stream's commands.

export interface StreamStates<S> {
  /** The stream's kept state as it is (not checked against the log), or undefined when none is kept. */
  kept(stream: string): S | undefined;
  /** The stream's state caught up with the log, kept afterwards. Callers must not modify it. */
  load(stream: string): Promise<S>;
  /**
   * Keeps the state the caller has just evolved with the event it appended; stores a snapshot of it
   * when the adapter's policy says one is due (never waited on: a failed snapshot only means a longer fold).
   */
  keep(stream: string, state: S): void;
}
