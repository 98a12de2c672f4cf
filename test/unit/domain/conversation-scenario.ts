// Helpers of the conversation decider tests (epics, comments, blockers, uploads): `upload` records a file
// as the upload endpoint would.
import type { Decision } from '../../../src/domain/decision.js';
import { decideUploadFile } from '../../../src/domain/file-attachment/upload-file.js';
import type { FileAttachmentDoc } from '../../../src/domain/file-attachment/upload-file.js';
import type { Scenario } from './decider-scenario.js';
import { OWNER } from './decider-scenario.js';

/** A distinct fake content hash per seed. */
export function contentHash(seed: number): string {
  return seed.toString(16).padStart(64, '0');
}

/** Records an upload of `filename` by `actorId`; returns the file attachment's id. */
export function upload(project: Scenario, filename = 'diagram.png', actorId = OWNER, seed = 1): number {
  const decision = project.when(
    decideUploadFile,
    { filename, content_type: 'image/png', size: 1234, content_hash: contentHash(seed) },
    actorId,
  );
  return decision.subject.id;
}

export function fileDoc(project: Scenario, id: number): FileAttachmentDoc | undefined {
  return project.state.fileAttachments.get(id);
}

/** The kinds and change types of a decision's changes, in order: `story:update`, ... */
export function changeKinds(decision: Decision): string[] {
  return decision.data.changes.map((change) => `${change.kind}:${change.change_type}`);
}
