// Story writes: a typed request -> one decision on the project stream -> the story as the read model now
// holds it, with the project version the write produced.
//
// Moving a story to another project appends two events, target first:
//   1. `story_move_into_project` in the target stream (the story, its contents and labels created there);
//   2. `story_move_from_project` in the source stream (the story and its contents deleted there).
// The window between the two appends: the target already holds the story while the source stream still
// does. The read model shows one document (the target's create replaces it by id; the source's delete
// only touches a document of its own project), so readers see the story in the target. A write to the
// story through the source project in that window is decided on the source copy and then discarded by
// the delete. If the process stops in the window, both streams hold the story until the move is sent
// again: a repeated move finds the story already in the target and only appends the source event.
import type { Decide } from '../domain/decision.js';
import { streams } from '../domain/events.js';
import type { StreamState } from '../domain/resource-state.js';
import { decideCreateStory, type CreateStoryInput } from '../domain/story/create-story.js';
import { decideDeleteStory } from '../domain/story/delete-story.js';
import { decideMoveStoryIn, decideMoveStoryOut, holdsStory, storyMoveSnapshot } from '../domain/story/move-story.js';
import {
  decideAddStoryLabel,
  decideAddStoryOwner,
  decideRemoveStoryLabel,
  decideRemoveStoryOwner,
  decideUpdateStory,
  type StoryLabelInput,
  type StoryLabelRemoval,
  type StoryOwnerInput,
  type UpdateStoryInput,
} from '../domain/story/update-story.js';
import { DomainError } from '../domain/errors.js';
import { projectOf } from '../domain/project-state.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandHandler, CommandMeta, CommandOutcome } from './command-handler.js';
import type { ReadView } from './people.js';

export interface StoryCommandDeps {
  commands: CommandHandler;
  stories: ReadView;
}

/** A written story as the read model holds it, and the project version after the write. */
export interface StoryWritten {
  story: Doc;
  version: number;
}

export class StoryCommands {
  constructor(private readonly deps: StoryCommandDeps) {}

  async create(projectId: number, input: CreateStoryInput, meta: CommandMeta): Promise<StoryWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideCreateStory(state, input, context), meta);
    return this.written(projectId, outcome.event.data.changes[0]!.id, outcome);
  }

  async update(projectId: number, input: UpdateStoryInput, meta: CommandMeta): Promise<StoryWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideUpdateStory(state, input, context), meta);
    return this.written(projectId, input.story_id, outcome);
  }

  /** Deletes the story with its tasks and comments; returns the project version. */
  async delete(projectId: number, storyId: number, meta: CommandMeta): Promise<number> {
    const outcome = await this.execute(projectId, (state, context) => decideDeleteStory(state, { story_id: storyId }, context), meta);
    return outcome.version;
  }

  async addLabel(projectId: number, input: StoryLabelInput, meta: CommandMeta): Promise<StoryWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideAddStoryLabel(state, input, context), meta);
    return this.written(projectId, input.story_id, outcome);
  }

  async removeLabel(projectId: number, input: StoryLabelRemoval, meta: CommandMeta): Promise<StoryWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideRemoveStoryLabel(state, input, context), meta);
    return this.written(projectId, input.story_id, outcome);
  }

  async addOwner(projectId: number, input: StoryOwnerInput, meta: CommandMeta): Promise<StoryWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideAddStoryOwner(state, input, context), meta);
    return this.written(projectId, input.story_id, outcome);
  }

  async removeOwner(projectId: number, input: StoryOwnerInput, meta: CommandMeta): Promise<StoryWritten> {
    const outcome = await this.execute(projectId, (state, context) => decideRemoveStoryOwner(state, input, context), meta);
    return this.written(projectId, input.story_id, outcome);
  }

  /** Moves a story from `sourceId` to `targetId` (see the header); returns it as the target holds it. */
  async move(sourceId: number, targetId: number, storyId: number, meta: CommandMeta): Promise<StoryWritten> {
    const source = await this.deps.commands.load(streams.project(sourceId));
    const snapshot = storyMoveSnapshot(source, storyId);
    const target = await this.deps.commands.load(streams.project(targetId));
    let into: CommandOutcome | null = null;
    if (!holdsStory(target, storyId)) {
      into = await this.execute(targetId, (state, context) => decideMoveStoryIn(state, snapshot, context), {
        ...meta,
        commandId: `${meta.commandId}:into`,
      });
    }
    const targetName = projectOf(target).name;
    const moveOut = { story_id: storyId, target_project_id: targetId, target_project_name: targetName };
    await this.execute(sourceId, (state, context) => decideMoveStoryOut(state, moveOut, context), {
      ...meta,
      commandId: `${meta.commandId}:from`,
    });
    const version = into?.version ?? (await this.deps.commands.load(streams.project(targetId))).version;
    const story = await this.deps.stories.findOne({ id: storyId, project_id: targetId });
    if (!story) throw new DomainError('unfound_resource');
    return { story, version };
  }

  private execute(projectId: number, decide: Decide<StreamState>, meta: CommandMeta): Promise<CommandOutcome> {
    return this.deps.commands.execute(streams.project(projectId), decide, meta);
  }

  private async written(projectId: number, storyId: number, outcome: CommandOutcome): Promise<StoryWritten> {
    const story = await this.deps.stories.findOne({ id: storyId, project_id: projectId });
    if (!story) throw new DomainError('unfound_resource');
    return { story, version: outcome.version };
  }
}
