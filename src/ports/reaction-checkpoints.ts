// Where each reaction keeps the global position it has handled the log up to. Adapter:
// infra/reaction/sqlite-reaction-checkpoints.ts (`reactions.sqlite` beside the log, durable across
// restarts even while the read models live in memory).

export interface ReactionCheckpoints {
  /** The position the reaction has handled the log up to (0: nothing yet). */
  position(reaction: string): Promise<number>;
  save(reaction: string, position: number): Promise<void>;
  close(): Promise<void>;
}
