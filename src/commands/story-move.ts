// Moving a story to another project appends two events, target first:
//   1. `story_move_into_project` in the target stream (the story, its contents and labels created there);
//   2. `story_move_from_project` in the source stream (the story and its contents deleted there).
// The window between the two appends: the target already holds the story while the source stream still
// does. The read model shows one document (the target's create replaces it by id; the source's delete
// only touches a document of its own project), so readers see the story in the target. A write to the
// story through the source project in that window is decided on the source copy and then discarded by
// the delete. If the process stops in the window, both streams hold the story until the move is sent
// again: a repeated move finds the story already in the target and only appends the source event.
import { DomainError } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import { decideMoveStoryIn, decideMoveStoryOut, holdsStory, storyMoveSnapshot } from '../domain/story/move-story.js';
import type { CommandHandler, CommandMeta } from './command-handler.js';
import type { ReadView } from './read-view.js';
import type { ResourceWriter, Written } from './resource-writer.js';

export interface StoryMoveDeps {
  commands: CommandHandler;
  writer: ResourceWriter;
  stories: ReadView;
}

/** Moves a story from `sourceId` to `targetId` (see the header); returns it as the target holds it. */
export async function moveStory(deps: StoryMoveDeps, sourceId: number, targetId: number, storyId: number, meta: CommandMeta): Promise<Written> {
  const source = await deps.commands.load(streams.project(sourceId));
  const snapshot = storyMoveSnapshot(source, storyId);
  const target = await deps.commands.load(streams.project(targetId));
  let version: number | null = null;
  if (!holdsStory(target, storyId)) {
    const into = await deps.writer.execute(streams.project(targetId), decideMoveStoryIn, snapshot, { ...meta, commandId: `${meta.commandId}:into` });
    version = into.version;
  }
  const moveOut = { story_id: storyId, target_project_id: targetId, target_project_name: target.project().name };
  await deps.writer.execute(streams.project(sourceId), decideMoveStoryOut, moveOut, { ...meta, commandId: `${meta.commandId}:from` });
  version ??= (await deps.commands.load(streams.project(targetId))).version;
  const story = await deps.stories.findOne({ id: storyId, project_id: targetId });
  if (!story) throw new DomainError('unfound_resource');
  return { doc: story, version };
}
