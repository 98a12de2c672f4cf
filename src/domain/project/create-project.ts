// Creating a project: its settings checked and defaulted, its first owner's membership and its review types.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError } from '../errors.js';
import type { DecidedChange, ChangeValues } from '../events.js';
import { membershipCreateChange, type NewMembership } from './membership-rules.js';
import { applySettings, defaultSettings } from './project-settings.js';
import { defaultReviewTypes, reviewTypeCreateChange } from '../review/review-state.js';
import { nameUniqueness, settingsRejected } from './project-rules.js';

export interface CreateProject {
  /** Allocated by the caller: it names the stream. */
  projectId: number;
  accountId: number;
  /** The requested name and settings (keys the spec lists; others are ignored). */
  request: Record<string, unknown>;
  /** The person who becomes owner, or null (`no_owner`). */
  owner: { personId: number; name?: string } | null;
  /**
   * Names of the other live projects in the same account, read from the projects read model. Two
   * concurrent creates with the same name can both pass this check (accepted race, see ADR in README).
   */
  takenNames: readonly string[];
}

export function decideCreateProject(command: CreateProject, state: ProjectState, context: DecisionContext): Decision {
  if (state.version > 0) throw new DomainError('duplicate_entry', { general_problem: 'The project already exists.' });
  if (!('name' in command.request) || command.request['name'] === null || command.request['name'] === undefined) {
    throw new DomainError('invalid_parameter', {
      general_problem: 'this endpoint requires the parameter: name',
      validation_errors: [{ field: 'name', problem: "Name can't be blank" }],
    });
  }
  const outcome = applySettings(defaultSettings(context.now), command.request, context.now);
  const problems = [...outcome.problems, ...nameUniqueness(outcome.values['name'], command.takenNames)];
  if (problems.length > 0) throw settingsRejected(problems, command.request);
  const project: ChangeValues<'project'> = {
    ...defaultSettings(context.now),
    ...outcome.values,
    id: command.projectId,
    account_id: command.accountId,
    created_at: context.now,
    updated_at: context.now,
  };
  const name = String(project['name']);
  const changes: DecidedChange[] = [
    { kind: 'project', change_type: 'create', id: command.projectId, name, new_values: project },
  ];
  if (command.owner) {
    const owner: NewMembership = { personId: command.owner.personId, role: 'owner' };
    changes.push(membershipCreateChange(command.projectId, context.nextId('project_membership'), owner, context.now, 0, command.owner.name));
  }
  changes.push(...defaultReviewTypes(command.projectId, () => context.nextId('review_type'), context.now).map(reviewTypeCreateChange));
  return {
    type: 'project_create',
    data: { changes, primary_resources: [{ kind: 'project', id: command.projectId, name }] },
    subject: { kind: 'project', id: command.projectId },
  };
}
