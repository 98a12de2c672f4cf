// The feed of the conversation events, rendered from what the deciders decide: the phrases of uploads,
// comments and blockers, and the story and epic feeds they belong to.
import { expect } from 'chai';
import { activitySubjects } from '../../../src/domain/activity/activity-subjects.js';
import { renderActivity } from '../../../src/domain/activity/render-activity.js';
import { decideCreateBlocker } from '../../../src/domain/blocker/create-blocker.js';
import { decideDeleteBlocker } from '../../../src/domain/blocker/delete-blocker.js';
import { decideUpdateBlocker } from '../../../src/domain/blocker/update-blocker.js';
import { decideCreateComment } from '../../../src/domain/comment/create-comment.js';
import type { Decision } from '../../../src/domain/decision.js';
import { decideCreateEpic } from '../../../src/domain/epic/create-epic.js';
import { decideUploadFile } from '../../../src/domain/file-attachment/upload-file.js';

import { givenProject } from '../domain/decider-scenario.js';
import { context, projectEvent } from './activity-events.fixture.js';

function headline(decision: Decision): string {
  return renderActivity(projectEvent(decision.type, decision.data), context())!.message;
}

describe('activity of uploads, comments, blockers and epics', () => {
  it('reads an upload with its file name', () => {
    const project = givenProject();
    const decision = project.when(decideUploadFile, {
      filename: 'plan.pdf',
      content_type: 'application/pdf',
      size: 10,
      content_hash: 'a'.repeat(64),
    });
    expect(decision.type).to.equal('file_attachment_create');
    expect(headline(decision)).to.equal('Alice Adams uploaded file: "plan.pdf"');
    expect(decision.data.changes[0]!.new_values).to.deep.include({ thumbnailable: false, uploaded: true, size: 10 });
    expect(decision.data.changes[0]!.new_values).to.not.have.any.keys('width', 'height');
  });

  it('records the width and height of an image', () => {
    const project = givenProject();
    const command = { filename: 'dot.gif', content_type: 'image/gif', size: 30, content_hash: 'd'.repeat(64), width: 5, height: 4 };
    const decision = project.when(decideUploadFile, command);
    expect(decision.data.changes[0]!.new_values).to.deep.include({ width: 5, height: 4, thumbnailable: false });
  });

  it('refuses an upload without a person', () => {
    const project = givenProject();
    const command = { filename: 'a', content_type: 'text/plain', size: 1, content_hash: 'b'.repeat(64) };
    expect(project.rejected(decideUploadFile, command, null).code).to.equal('invalid_parameter');
  });

  it('reads blocker writes, and files them in the blocked story feed', () => {
    const project = givenProject();
    const story = project.story();
    const created = project.when(decideCreateBlocker, { story_id: story, description: 'legal review' });
    expect(headline(created)).to.equal('Alice Adams added blocker: "legal review"');
    const id = created.data.changes[0]!.id;
    const resolved = project.when(decideUpdateBlocker, { story_id: story, blocker_id: id, resolved: true });
    expect(headline(resolved)).to.equal('Alice Adams resolved blocker: "legal review"');
    const reopened = project.when(decideUpdateBlocker, { story_id: story, blocker_id: id, resolved: false });
    expect(headline(reopened)).to.equal('Alice Adams unresolved blocker: "legal review"');
    const renamed = project.when(decideUpdateBlocker, { story_id: story, blocker_id: id, description: 'legal' });
    expect(headline(renamed)).to.equal('Alice Adams edited blocker: "legal"');
    const deleted = project.when(decideDeleteBlocker, { story_id: story, blocker_id: id });
    expect(headline(deleted)).to.equal('Alice Adams deleted blocker: "legal"');
    expect(activitySubjects(deleted.data)).to.deep.equal([{ kind: 'story', id: story }]);
  });

  it('reads a comment with its text, and one with only files as added to its parent', () => {
    const project = givenProject();
    const story = project.story();
    const text = project.when(decideCreateComment, { story_id: story, text: 'Ship it' });
    expect(headline(text)).to.equal('Alice Adams added comment: "Ship it"');
    const epic = project.when(decideCreateEpic, { name: 'Launch' });
    expect(headline(epic)).to.equal('Alice Adams added this epic');
    const epicId = epic.data.changes[0]!.id;
    const linkOnly = project.when(decideCreateComment, { epic_id: epicId, ext_attachments: [{ title: 'Doc' }] });
    expect(headline(linkOnly)).to.equal('Alice Adams added a comment to this epic');
    expect(activitySubjects(linkOnly.data)).to.deep.equal([{ kind: 'epic', id: epicId }]);
  });
});
