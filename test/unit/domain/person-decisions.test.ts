import type { PersonState } from '../../../src/domain/person/person-state.js';
import { expect } from 'chai';
import { decideCreatePerson } from '../../../src/domain/person/create-person.js';
import { EMAIL_TAKEN, freeUsername, initialsOf, USERNAME_TAKEN } from '../../../src/domain/person/person-rules.js';
import { decideRememberPeople } from '../../../src/domain/person/remember-people.js';
import { decideUpdatePerson } from '../../../src/domain/person/update-person.js';
import { Scenario, T0 } from './decider-scenario.js';

const nothingTaken = { emails: new Set<string>(), usernames: new Set<string>() };
const person = (scenario: Scenario<PersonState>) => scenario.state.people.get(9)!;

describe('person decisions', () => {
  it('creates a person with derived initials and username, a lower-cased email, and no secret', () => {
    const scenario = new Scenario<PersonState>('person-9');
    const decision = scenario.when(decideCreatePerson, { personId: 9, email: 'Ada.L@example.com', name: 'Ada Lovelace', taken: nothingTaken });
    expect(decision.type).to.equal('person_create');
    expect(person(scenario)).to.deep.equal({
      id: 9,
      name: 'Ada Lovelace',
      initials: 'AL',
      username: 'ada.l',
      email: 'ada.l@example.com',
      receives_in_app_notifications: true,
      has_ext_identity: false,
      twofactor_auth_enabled: false,
      created_at: T0,
      updated_at: T0,
    });
  });

  it('uses the email as the name when none is given and numbers a taken username', () => {
    const scenario = new Scenario<PersonState>('person-9');
    scenario.when(decideCreatePerson, { personId: 9, email: 'bob@x.io', taken: { emails: new Set<string>(), usernames: new Set(['bob', 'bob2']) } });
    expect(person(scenario)).to.deep.include({ name: 'bob', initials: 'B', username: 'bob3' });
  });

  it('rejects a taken email or username (case-insensitive) and invalid values', () => {
    const taken = { emails: new Set(['ada@x.io']), usernames: new Set(['ada']) };
    const error = new Scenario<PersonState>('person-9').rejects(decideCreatePerson, { personId: 9, email: 'ADA@x.io', username: 'Ada', taken }, 'invalid_parameter');
    expect(error.details.validation_errors).to.deep.equal([
      { field: 'email', problem: EMAIL_TAKEN },
      { field: 'username', problem: USERNAME_TAKEN },
    ]);
    new Scenario<PersonState>('person-9').rejects(decideCreatePerson, { personId: 9, email: 'not-an-email', taken: nothingTaken }, 'invalid_parameter', 'email');
    new Scenario<PersonState>('person-9').rejects(decideCreatePerson, { personId: 9, email: 'a@b.c', username: 'sp ace', taken: nothingTaken }, 'invalid_parameter', 'username');
    new Scenario<PersonState>('person-9').rejects(decideCreatePerson, { personId: 9, email: 'a@b.c', initials: 'TOOLONG', taken: nothingTaken }, 'invalid_parameter', 'initials');
    new Scenario<PersonState>('person-9').rejects(decideCreatePerson, { personId: 9, email: 'a@b.c', name: ' ', taken: nothingTaken }, 'invalid_parameter', 'name');
  });

  it('updates only what changed', () => {
    const scenario = new Scenario<PersonState>('person-9').given(decideCreatePerson, { personId: 9, email: 'a@b.io', name: 'A', taken: nothingTaken });
    const decision = scenario.when(decideUpdatePerson, { request: { name: 'Ann', initials: 'A', time_zone: 'Europe/Paris' }, taken: nothingTaken }, { now: T0 + 5 });
    expect(decision.data.changes[0]?.new_values).to.deep.equal({
      updated_at: T0 + 5,
      name: 'Ann',
      time_zone: { kind: 'time_zone', olson_name: 'Europe/Paris', offset: '+01:00' },
    });
    scenario.rejects(decideUpdatePerson, { request: { email: 'c@d.io' }, taken: { emails: new Set(['c@d.io']), usernames: new Set<string>() } }, 'invalid_parameter', 'email');
  });

  it('is unfound for an unknown person and refuses to create twice', () => {
    new Scenario<PersonState>('person-9').rejects(decideUpdatePerson, { request: {}, taken: nothingTaken }, 'unfound_resource');
    const scenario = new Scenario<PersonState>('person-9').given(decideCreatePerson, { personId: 9, email: 'a@b.io', taken: nothingTaken });
    scenario.rejects(decideCreatePerson, { personId: 9, email: 'x@b.io', taken: nothingTaken }, 'duplicate_entry');
  });

  it('remembers known people once each, never the person themself', () => {
    const scenario = new Scenario<PersonState>('person-9').given(decideCreatePerson, { personId: 9, email: 'a@b.io', taken: nothingTaken });
    scenario.when(decideRememberPeople, { personIds: [12, 9, 11] });
    scenario.when(decideRememberPeople, { personIds: [11, 10] });
    expect(person(scenario)['known_person_ids']).to.deep.equal([10, 11, 12]);
  });

  it('derives initials and usernames', () => {
    expect(initialsOf('jean  luc picard riker')).to.equal('JLP');
    expect(freeUsername('Ma+ria@x.io', new Set())).to.equal('maria');
    expect(freeUsername('+++@x.io', new Set())).to.equal('user');
  });
});
