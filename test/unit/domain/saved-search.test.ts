import { expect } from 'chai';
import { decideCreateSavedSearch } from '../../../src/domain/saved-search/create-saved-search.js';
import { decideDeleteSavedSearch } from '../../../src/domain/saved-search/delete-saved-search.js';
import { searchesOf } from '../../../src/domain/saved-search/saved-search-rules.js';
import { EVENT_SCHEMA } from '../../../src/domain/events.js';
import { resourcesProjection } from '../../../src/projections/resources/resources-projection.js';
import { MEMBER, OWNER, PROJECT_ID, givenProject, problemsOf } from './decider-scenario.js';

const create = decideCreateSavedSearch;
const remove = decideDeleteSavedSearch;

describe('saved searches', () => {
  it('saves a search for its owner in the project stream, one event', () => {
    const project = givenProject();
    const decision = project.when(create, { name: ' Mine ', query: 'state:started owner:AQ' }, MEMBER);
    expect(decision.type).to.equal('saved_search_create');
    const change = decision.data.changes[0]!;
    expect(change).to.deep.include({ kind: 'saved_search', change_type: 'create', name: 'Mine' });
    expect(change.new_values).to.deep.equal({
      id: change.id, project_id: PROJECT_ID, name: 'Mine', query: 'state:started owner:AQ', owner_id: MEMBER, created_at: project.now, updated_at: project.now,
    });
    expect(decision.data.primary_resources).to.deep.equal([{ kind: 'saved_search', id: change.id, name: 'Mine' }]);
    expect(searchesOf(project.state, MEMBER).map((search) => search.id)).to.deep.equal([change.id]);
    expect(searchesOf(project.state, OWNER)).to.deep.equal([]);
  });

  it('requires a name unique per owner and a valid query, refused with the grammar’s 400', () => {
    const project = givenProject();
    project.when(create, { name: 'Mine', query: 'label:ops' }, MEMBER);
    expect(problemsOf(project.rejected(create, { name: 'MINE', query: 'x' }, MEMBER))).to.deep.equal({ name: 'Name has already been taken' });
    project.when(create, { name: 'mine', query: 'x' }, OWNER);
    expect(problemsOf(project.rejected(create, { name: ' ', query: 12 }, MEMBER))).to.deep.equal({ name: "Name can't be blank", query: "Query can't be blank" });
    expect(problemsOf(project.rejected(create, { name: 'n'.repeat(256), query: 'x' }, MEMBER))).to.have.key('name');
    expect(problemsOf(project.rejected(create, { name: 'Bad', query: '(state:started' }, MEMBER)).query).to.match(/never closed \(at character 1\)/);
    expect(project.rejected(create, { name: 'Op', query: 'x' }, null).code).to.equal('unauthorized_operation');
  });

  it('deletes only the owner’s own search; anyone else’s is unfound', () => {
    const project = givenProject();
    const id = project.when(create, { name: 'Mine', query: 'x' }, MEMBER).data.changes[0]!.id;
    expect(project.rejected(remove, { search_id: id }, OWNER).code).to.equal('unfound_resource');
    expect(project.rejected(remove, { search_id: 4242 }, MEMBER).code).to.equal('unfound_resource');
    const decision = project.when(remove, { search_id: id }, MEMBER);
    expect(decision.type).to.equal('saved_search_delete');
    expect(decision.data.changes[0]).to.deep.include({ kind: 'saved_search', change_type: 'delete', id, name: 'Mine' });
    expect(searchesOf(project.state, MEMBER)).to.deep.equal([]);
  });

  it('projects into the saved_searches collection of its project, owner kept for the private listing', () => {
    const project = givenProject();
    const decision = project.when(create, { name: 'Mine', query: 'x' }, MEMBER);
    const event = {
      ...decision, id: 'e', stream: `project-${PROJECT_ID}`, version: 9, position: 9,
      meta: { schema: EVENT_SCHEMA, occurred_at: project.now, performed_by: MEMBER, command_id: 'c' },
    };
    const writes = resourcesProjection.apply(event);
    const saved = writes.find((write) => write.collection === 'saved_searches')!;
    expect(saved.ops).to.have.length(1);
    expect(saved.ops[0]).to.deep.include({ op: 'replace', upsert: true });
    expect((saved.ops[0] as { doc: Record<string, unknown> }).doc).to.deep.include({ project_id: PROJECT_ID, owner_id: MEMBER, name: 'Mine', query: 'x' });
  });
});
