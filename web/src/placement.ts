// A move on the board as the story PUT Tracker's board sent: the neighbour below as `before_id` (or,
// at the end of a list, the one above as `after_id`), and `group` when the story crosses the Icebox
// boundary, which moves its state along (Icebox -> Backlog: unstarted; -> Icebox: unscheduled). The
// server places the story and plans the iterations; the board only asks.

export type Panel = 'current' | 'backlog' | 'icebox';

export interface Move {
  from: Panel;
  to: Panel;
  /** The story shown just above the drop place in the target list (null: the top). */
  above: number | null;
  /** The story shown just below it (null: the end). */
  below: number | null;
}

export interface MoveOptions {
  /** The project plans Current by hand: a story dropped into Current becomes planned. */
  automaticPlanning: boolean;
}

/** Whether two panels hold the same part of the order (Current and Backlog are the scheduled part). */
export function samePart(a: Panel, b: Panel): boolean {
  return (a === 'icebox') === (b === 'icebox');
}

/** The PUT body of a move, or null when there is nothing to ask (a story alone in its list). */
export function moveBody(move: Move, options: MoveOptions): Record<string, unknown> | null {
  const neighbour: Record<string, number> = move.below !== null ? { before_id: move.below } : move.above !== null ? { after_id: move.above } : {};
  const placed = Object.keys(neighbour).length > 0;
  if (samePart(move.from, move.to)) return placed ? neighbour : null;
  if (move.to === 'icebox') return placed ? { group: 'unscheduled', ...neighbour } : { current_state: 'unscheduled' };
  const group = move.to === 'current' && !options.automaticPlanning ? 'current' : 'scheduled';
  if (placed) return { group, ...neighbour };
  return { current_state: group === 'current' ? 'planned' : 'unstarted' };
}

/**
 * The neighbours of a story moved one place up (-1) or down (+1) in the board's order, which runs from
 * the top of Current through the Backlog to the bottom of the Icebox; null at either end.
 */
export function keyboardMove(order: ReadonlyArray<{ id: number; panel: Panel }>, storyId: number, delta: -1 | 1): Move | null {
  const index = order.findIndex((entry) => entry.id === storyId);
  if (index === -1) return null;
  const target = index + delta;
  if (target < 0 || target >= order.length) return null;
  const from = order[index]!.panel;
  const passed = order[target]!;
  const to = passed.panel;
  const rest = order.filter((entry) => entry.id !== storyId);
  // One step across the Icebox boundary lands at the edge of the other part (the top of the Icebox, the
  // end of the Backlog); within a part the story passes its neighbour.
  const insertAt = samePart(from, to) ? index + delta : index;
  const inPart = (entry: { id: number; panel: Panel } | undefined) => (entry && samePart(entry.panel, to) ? entry : undefined);
  const above = inPart(rest[insertAt - 1]);
  const below = inPart(rest[insertAt]);
  return { from, to, above: above?.id ?? null, below: below?.id ?? null };
}
