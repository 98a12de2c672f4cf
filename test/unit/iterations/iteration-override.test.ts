// The iteration override decider: given a project stream, when an override is set, then one
// iteration_update event creates or updates the override, or the request is refused.
import { expect } from 'chai';
import { decideSetIterationOverride, iterationOverrideView, overridesOf } from '../../../src/domain/iteration/iteration-override.js';
import { decideCreateProject } from '../../../src/domain/project/create-project.js';
import { decideUpdateProject } from '../../../src/domain/project/update-project.js';
import { Scenario, T0 } from '../domain/decider-scenario.js';

const WEEK = 7 * 86_400_000;
const override = decideSetIterationOverride; // the decider under test

/** A project started on Monday T0's day, now in its third week (iteration 3). */
function givenProject(): Scenario {
  const scenario = new Scenario('project-5');
  scenario.given(decideCreateProject, { projectId: 5, accountId: 1, request: { name: 'Rocket', start_date: '2024-01-08' }, owner: null, takenNames: [] });
  return scenario;
}
const inWeek3 = { now: T0 + 2 * WEEK };

describe('iteration override decider', () => {
  it('creates an override of the current iteration with an id of its own', () => {
    const scenario = givenProject();
    const decision = scenario.when(override, { number: 3, request: { length: 2, team_strength: 0.5 } }, inWeek3);
    expect(decision.type).to.equal('iteration_update');
    expect(decision.data.changes).to.deep.equal([
      { kind: 'iteration_override', change_type: 'create', id: 101, new_values: { number: 3, length: 2, team_strength: 0.5 } },
    ]);
    expect(overridesOf(scenario.state)).to.deep.equal([{ number: 3, length: 2, team_strength: 0.5 }]);
  });

  it('updates the same override later, showing what changed, and returns values to default with null', () => {
    const scenario = givenProject();
    scenario.given(override, { number: 1, request: { length: 2 } }, inWeek3);
    const decision = scenario.when(override, { number: 1, request: { length: null, team_strength: 0 } }, inWeek3);
    expect(decision.data.changes).to.deep.equal([
      { kind: 'iteration_override', change_type: 'update', id: 101, original_values: { length: 2, team_strength: null }, new_values: { number: 1, length: null, team_strength: 0 } },
    ]);
    const [stored] = overridesOf(scenario.state);
    expect(iterationOverrideView({ id: 5, iteration_length: 1 }, stored!)).to.deep.equal({ kind: 'iteration_override', number: 1, project_id: 5, length: 1, team_strength: 0 });
  });

  it('refuses iterations that have not started, iteration 0, and bad values, naming the key', () => {
    const scenario = givenProject();
    expect(scenario.rejects(override, { number: 4, request: { length: 2 } }, 'invalid_parameter', 'number', inWeek3).details.general_problem).to.match(/has not started/);
    scenario.rejects(override, { number: 0, request: { length: 2 } }, 'invalid_parameter', 'number', inWeek3);
    scenario.rejects(override, { number: 2, request: { length: 100 } }, 'invalid_parameter', 'length', inWeek3);
    scenario.rejects(override, { number: 2, request: { length: 1.5 } }, 'invalid_parameter', 'length', inWeek3);
    scenario.rejects(override, { number: 2, request: { team_strength: -0.1 } }, 'invalid_parameter', 'team_strength', inWeek3);
    scenario.rejects(override, { number: 2, request: { team_strength: 'full' } }, 'invalid_parameter', 'team_strength', inWeek3);
    scenario.rejects(override, { number: 2, request: { length: 2, velocity: 8 } }, 'invalid_parameter', 'velocity', inWeek3);
    scenario.rejects(override, { number: 2, request: {} }, 'invalid_parameter', undefined, inWeek3);
    scenario.rejects(override, { number: 2, request: [2] as unknown as Record<string, unknown> }, 'invalid_parameter', undefined, inWeek3);
  });

  it('counts the current iteration with the overrides already set', () => {
    const scenario = givenProject();
    // Iteration 1 stretched to 3 weeks: in week 3 the project is still in iteration 1.
    scenario.given(override, { number: 1, request: { length: 3 } }, { now: T0 });
    scenario.rejects(override, { number: 2, request: { length: 2 } }, 'invalid_parameter', 'number', inWeek3);
  });

  it('goes back to default, in the same event, when the start date or week start day changes', () => {
    const scenario = givenProject();
    scenario.given(override, { number: 2, request: { length: 2, team_strength: 0.5 } }, inWeek3);
    const renamed = scenario.when(decideUpdateProject, { request: { name: 'Renamed' }, takenNames: [] }, inWeek3);
    expect(renamed.data.changes.map((change) => change.kind)).to.deep.equal(['project']);
    const moved = scenario.when(decideUpdateProject, { request: { start_date: '2024-01-01' }, takenNames: [] }, inWeek3);
    expect(moved.data.changes[1]).to.deep.equal({
      kind: 'iteration_override', change_type: 'update', id: 101,
      original_values: { length: 2, team_strength: 0.5 }, new_values: { number: 2, length: null, team_strength: null },
    });
    expect(overridesOf(scenario.state)).to.deep.equal([{ number: 2 }]);
    const again = scenario.when(decideUpdateProject, { request: { start_date: '2024-01-08' }, takenNames: [] }, inWeek3);
    expect(again.data.changes).to.have.length(1);
  });

  it('is unfound on a project that does not exist', () => {
    new Scenario('project-9').rejects(override, { number: 1, request: { length: 2 } }, 'unfound_resource');
  });
});
