// Velocity (facts §7.3): the points the team accepts per iteration, averaged over the most recent done
// iterations (`velocity_averaged_over`, the strategy size). Per week: Σ(accepted points ÷ team strength)
// ÷ Σ(length in weeks) over those iterations, leaving out iterations with team strength 0 and ended ones
// of length 0 (iteration-override.ts); shown per
// project iteration length, rounded down. `initial_velocity` stands in while no done iteration counts:
// before the first one ends, when every averaged iteration has team strength 0, and when every averaged
// iteration accepted zero points (the run of empty iterations reaches the strategy size, or covers the
// whole young project).

/** What velocity needs of a done iteration. */
export interface DoneIterationPoints {
  accepted_points: number;
  /** Weeks. */
  length: number;
  team_strength: number;
}

export interface VelocitySettings {
  velocity_averaged_over: number;
  initial_velocity: number;
  /** The project's iteration_length, in weeks. */
  iteration_length: number;
}

/** The velocity after `done` (oldest first; only the last `velocity_averaged_over` count). */
export function velocityAfter(done: readonly DoneIterationPoints[], settings: VelocitySettings): number {
  const averaged = done.slice(Math.max(0, done.length - settings.velocity_averaged_over));
  const counted = averaged.filter((iteration) => iteration.team_strength > 0 && iteration.length > 0);
  if (counted.length === 0 || counted.every((iteration) => iteration.accepted_points === 0)) return settings.initial_velocity;
  let points = 0;
  let weeks = 0;
  for (const iteration of counted) {
    points += iteration.accepted_points / iteration.team_strength;
    weeks += iteration.length;
  }
  return Math.floor((points / weeks) * settings.iteration_length + 1e-9);
}

/**
 * How many points an iteration can take when planned: the velocity, scaled to the iteration's length
 * and team strength (a half-strength or half-length iteration takes half).
 */
export function iterationCapacity(velocity: number, length: number, teamStrength: number, projectLength: number): number {
  return (velocity * length * teamStrength) / projectLength;
}

/**
 * Points normalised to a full-strength iteration of the project's length (facts §7.2). An iteration
 * with team strength 0 is normalised by length only; one of length 0 (ended, empty) has none.
 */
export function effectivePoints(points: number, length: number, teamStrength: number, projectLength: number): number {
  if (length === 0) return 0;
  const strength = teamStrength > 0 ? teamStrength : 1;
  return (points / strength) * (projectLength / length);
}
