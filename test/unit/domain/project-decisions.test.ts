import { expect } from 'chai';
import { decideCreateProject, type CreateProject } from '../../../src/domain/project/create-project.js';
import { decideDeleteProject } from '../../../src/domain/project/delete-project.js';
import { NAME_TAKEN } from '../../../src/domain/project/project-rules.js';
import { decideUpdateProject } from '../../../src/domain/project/update-project.js';
import { Scenario, T0 } from './decider-scenario.js';

const create = (request: Record<string, unknown>, extra: Partial<CreateProject> = {}): CreateProject =>
  ({ projectId: 7, accountId: 3, request, owner: { personId: 42, name: 'Ada' }, takenNames: [], ...extra });

const project = (scenario: Scenario) => scenario.state.projects.get(7)!;

describe('project decisions', () => {
  describe('create', () => {
    it('creates the project with the service defaults, the creator as owner and the default review types, in one event', () => {
      const scenario = new Scenario('project-7');
      const decision = scenario.when(decideCreateProject, create({ name: 'Alpha' }), { actorId: 42 });
      expect(decision.type).to.equal('project_create');
      expect(decision.data.changes.map((c) => [c.kind, c.change_type])).to.deep.equal([
        ['project', 'create'],
        ['project_membership', 'create'],
        ...Array.from({ length: 4 }, () => ['review_type', 'create']),
      ]);
      expect([...scenario.state.reviewTypes].map((type) => [type['name'], type['hidden'], type['project_id']])).to.deep.equal([
        ['Test (QA)', false, 7], ['Design', false, 7], ['Code', false, 7], ['Security', false, 7],
      ]);
      expect(project(scenario)).to.deep.include({
        id: 7,
        name: 'Alpha',
        account_id: 3,
        week_start_day: 'Monday',
        iteration_length: 1,
        point_scale: '0,1,2,3',
        point_scale_is_custom: false,
        velocity_averaged_over: 3,
        initial_velocity: 10,
        number_of_done_iterations_to_show: 12,
        enable_tasks: true,
        enable_following: true,
        automatic_planning: true,
        bugs_and_chores_are_estimatable: false,
        public: false,
        project_type: 'private',
        atom_enabled: false,
        join_as: 'member',
        created_at: T0,
        updated_at: T0,
      });
      expect(project(scenario)['time_zone']).to.deep.equal({ kind: 'time_zone', olson_name: 'Etc/UTC', offset: '+00:00' });
      const [owner] = scenario.state.memberships;
      expect(owner).to.deep.include({ project_id: 7, person_id: 42, role: 'owner', favorite: false });
      expect(scenario.state.version).to.equal(1);
    });

    it('creates no membership with no_owner', () => {
      const scenario = new Scenario('project-7');
      const decision = scenario.when(decideCreateProject, create({ name: 'Alpha' }, { owner: null }));
      expect(decision.data.changes.filter((change) => change.kind !== 'review_type').map((change) => change.kind)).to.deep.equal(['project']);
    });

    it('applies every requested setting and derives project_type and point_scale_is_custom', () => {
      const scenario = new Scenario('project-7');
      scenario.when(
        decideCreateProject,
        create({
          name: ' Beta ',
          iteration_length: 2,
          week_start_day: 'tuesday',
          point_scale: '0, 0.5, 1, 13',
          public: true,
          start_date: '2024-01-09',
          time_zone: { olson_name: 'America/Los_Angeles' },
          description: 'short',
          join_as: 'viewer',
          enable_following: false,
        }),
      );
      expect(project(scenario)).to.deep.include({
        name: 'Beta',
        iteration_length: 2,
        week_start_day: 'Tuesday',
        point_scale: '0,0.5,1,13',
        point_scale_is_custom: true,
        public: true,
        project_type: 'public',
        start_date: '2024-01-09',
        description: 'short',
        join_as: 'viewer',
        enable_following: true,
      });
      expect(project(scenario)['time_zone']).to.deep.equal({ kind: 'time_zone', olson_name: 'America/Los_Angeles', offset: '-08:00' });
    });

    it('recognises a built-in scale', () => {
      const scenario = new Scenario('project-7');
      scenario.when(decideCreateProject, create({ name: 'A', point_scale: '0,1,2,3,5,8' }));
      expect(project(scenario)['point_scale_is_custom']).to.equal(false);
    });

    it('requires a name', () => {
      const error = new Scenario('project-7').rejects(decideCreateProject, create({}), 'invalid_parameter', 'name');
      expect(error.details.general_problem).to.equal('this endpoint requires the parameter: name');
    });

    it('limits the name to 50 characters with the service requirement text', () => {
      const error = new Scenario('project-7').rejects(decideCreateProject, create({ name: 'x'.repeat(51) }), 'invalid_parameter', 'name');
      expect(error.details.requirement).to.equal("'name' parameter must be 50 characters or less.");
      new Scenario('project-7').when(decideCreateProject, create({ name: 'x'.repeat(50) }));
    });

    it('rejects a name already taken in the account, whatever its case', () => {
      const error = new Scenario('project-7').rejects(decideCreateProject, create({ name: 'alpha' }, { takenNames: ['Alpha'] }), 'invalid_parameter', 'name');
      expect(error.details.validation_errors).to.deep.equal([{ field: 'name', problem: NAME_TAKEN }]);
    });

    for (const [field, value, problem] of [
      ['iteration_length', 5, 'iteration_length can only be between 1 and 4.'],
      ['iteration_length', 0, 'iteration_length can only be between 1 and 4.'],
      ['iteration_length', 1.5, "'iteration_length' must be an integer value"],
      ['iteration_length', 'two', "'iteration_length' must be an integer value"],
      ['velocity_averaged_over', 5, 'velocity_averaged_over can only be between 1 and 4.'],
      ['start_date', '1988-01-04', 'start_date is too far in the past.'],
      ['start_date', '2024-02-30', "'start_date' must be a date (YYYY-MM-DD)"],
      ['start_date', '2024-01-09', "start_date falls on a Tuesday, but the project's week_start_day is Monday."],
      ['week_start_day', 'Someday', 'week_start_day must be one of Sunday, Monday, Tuesday, Wednesday, Thursday, Friday, Saturday.'],
      ['public', 'yes', "'public' must be a boolean value"],
      ['time_zone', 'Mars/Olympus', 'time_zone must name a known time zone, such as America/Los_Angeles.'],
      ['join_as', 'owner', "join_as must be 'member' or 'viewer'."],
      ['description', 'd'.repeat(141), "'description' parameter must be 140 characters or less."],
    ] as const) {
      it(`rejects ${field} = ${JSON.stringify(value)}`, () => {
        const error = new Scenario('project-7').rejects(decideCreateProject, create({ name: 'A', [field]: value }), 'invalid_parameter', field);
        expect(error.details.validation_errors?.find((e) => e.field === field)?.problem).to.equal(problem);
      });
    }

    it('accepts a start date on the week start day', () => {
      new Scenario('project-7').when(decideCreateProject, create({ name: 'A', start_date: '2024-01-08' }));
      new Scenario('project-7').when(decideCreateProject, create({ name: 'A', start_date: '2024-01-07', week_start_day: 'Sunday' }));
    });

    for (const scale of ['0,1,two', '1,,2', '-1,0', '', '1,1']) {
      it(`rejects the point scale ${JSON.stringify(scale)}`, () => {
        new Scenario('project-7').rejects(decideCreateProject, create({ name: 'A', point_scale: scale }), 'invalid_parameter', 'point_scale');
      });
    }

    it('reports every invalid field at once', () => {
      const error = new Scenario('project-7').rejects(decideCreateProject, create({ name: 'A', iteration_length: 9, public: 3 }), 'invalid_parameter');
      expect(error.details.validation_errors?.map((e) => e.field)).to.have.members(['iteration_length', 'public']);
    });

    it('rejects project_type contradicting public', () => {
      new Scenario('project-7').rejects(decideCreateProject, create({ name: 'A', public: true, project_type: 'private' }), 'invalid_parameter', 'project_type');
    });
  });

  describe('update', () => {
    const created = () => new Scenario('project-7').given(decideCreateProject, create({ name: 'Alpha' }), { actorId: 42 });

    it('records only changed settings with their original values, and raises the version', () => {
      const scenario = created();
      const later = T0 + 60_000;
      const decision = scenario.when(decideUpdateProject, { request: { iteration_length: 2, name: 'Alpha', enable_tasks: true }, takenNames: [] }, { now: later });
      expect(decision.type).to.equal('project_update');
      const [change] = decision.data.changes;
      expect(change?.original_values).to.deep.equal({ iteration_length: 1, updated_at: T0 });
      expect(change?.new_values).to.deep.equal({ iteration_length: 2, updated_at: later });
      expect(scenario.state.version).to.equal(2);
      expect(project(scenario)['iteration_length']).to.equal(2);
    });

    it('checks start_date against a changed week_start_day', () => {
      const scenario = created().given(decideUpdateProject, { request: { start_date: '2024-01-08' }, takenNames: [] });
      scenario.rejects(decideUpdateProject, { request: { week_start_day: 'Sunday' }, takenNames: [] }, 'invalid_parameter', 'start_date');
      scenario.when(decideUpdateProject, { request: { week_start_day: 'Sunday', start_date: '2024-01-07' }, takenNames: [] });
      expect(project(scenario)).to.deep.include({ week_start_day: 'Sunday', start_date: '2024-01-07' });
    });

    it('clears start_date and description with null', () => {
      const scenario = created().given(decideUpdateProject, { request: { start_date: '2024-01-08', description: 'x' }, takenNames: [] });
      scenario.when(decideUpdateProject, { request: { start_date: null, description: null }, takenNames: [] });
      expect(project(scenario)).not.to.have.any.keys('start_date', 'description');
    });

    it('switches project_type with public', () => {
      const scenario = created();
      scenario.when(decideUpdateProject, { request: { public: true }, takenNames: [] });
      expect(project(scenario)).to.deep.include({ public: true, project_type: 'public' });
    });

    it('rejects a rename to a taken name but keeps its own name', () => {
      const scenario = created();
      scenario.rejects(decideUpdateProject, { request: { name: 'Beta' }, takenNames: ['beta'] }, 'invalid_parameter', 'name');
      scenario.when(decideUpdateProject, { request: { name: 'Alpha' }, takenNames: ['Alpha'] });
    });

    it('is unfound on a missing or deleted project', () => {
      new Scenario('project-7').rejects(decideUpdateProject, { request: {}, takenNames: [] }, 'unfound_resource');
      created().given(decideDeleteProject, {}).rejects(decideUpdateProject, { request: {}, takenNames: [] }, 'unfound_resource');
    });
  });

  describe('delete', () => {
    it('deletes the project and its memberships in one event', () => {
      const scenario = new Scenario('project-7').given(decideCreateProject, create({ name: 'Alpha' }));
      const decision = scenario.when(decideDeleteProject, {});
      expect(decision.data.changes.map((c) => [c.kind, c.change_type])).to.deep.equal([
        ['project', 'delete'],
        ['project_membership', 'delete'],
      ]);
      expect(scenario.state.projects.size).to.equal(0);
      expect(scenario.state.memberships.size).to.equal(0);
      scenario.rejects(decideDeleteProject, {}, 'unfound_resource');
    });
  });
});

describe('project calendar', () => {
  it('starts on the start date, else on the week start day on or before creation', async () => {
    const { projectStartTime } = await import('../../../src/domain/project/project-calendar.js');
    expect(projectStartTime({ start_date: '2024-01-08' })).to.equal(Date.UTC(2024, 0, 8));
    // 2024-01-10 is a Wednesday: Monday weeks start on the 8th, Sunday weeks on the 7th.
    expect(projectStartTime({ created_at: Date.UTC(2024, 0, 10, 15), week_start_day: 'Monday' })).to.equal(Date.UTC(2024, 0, 8));
    expect(projectStartTime({ created_at: Date.UTC(2024, 0, 10, 15), week_start_day: 'Sunday' })).to.equal(Date.UTC(2024, 0, 7));
    expect(projectStartTime({ created_at: Date.UTC(2024, 0, 8, 1), week_start_day: 'Monday' })).to.equal(Date.UTC(2024, 0, 8));
  });
});
