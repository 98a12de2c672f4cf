// The first start on an empty data directory: a demo account with an owner who can sign in, a sample
// project with a few stories, and a printout of how to log in and the API token.
import { randomBytes, randomUUID } from 'node:crypto';
import type { CommandMeta } from '../commands/command-handler.js';
import { streams } from '../domain/events.js';
import { decideCreateStory, type CreateStoryInput } from '../domain/story/create-story.js';
import type { StorylineConfig } from './config.js';
import type { Storyline } from './composition.js';

const SAMPLE_STORIES: CreateStoryInput[] = [
  { name: 'Invite the team to the sample project', story_type: 'chore', current_state: 'accepted' },
  { name: 'Point a Tracker client at this server', story_type: 'feature', current_state: 'started', estimate: 2 },
  { name: 'Import the backlog from the old tracker', story_type: 'feature', current_state: 'unstarted', estimate: 3, labels: ['migration'] },
  { name: 'Dates show in the wrong time zone', story_type: 'bug', current_state: 'unstarted', labels: ['migration'] },
  { name: 'First release', story_type: 'release', current_state: 'unstarted' },
  { name: 'Try the activity feed', story_type: 'feature' },
];

export async function seedDemoIfEmpty(storyline: Storyline, config: StorylineConfig, print: (line: string) => void): Promise<void> {
  if ((await storyline.eventStore.headPosition()) > 0) return;
  const email = config.demoEmail ?? 'demo@storyline.local';
  const password = config.demoPassword ?? randomBytes(12).toString('base64url');
  const owner = await storyline.addPerson({ email, name: 'Demo Owner', initials: 'DO', username: 'demo', password });
  const meta = (): CommandMeta => ({ commandId: randomUUID(), actorId: owner.id, now: Date.now() });

  const project = await storyline.deps.projects.createProject(owner.id, { name: 'Sample Project', new_account_name: 'Demo Account' }, meta());
  for (const story of SAMPLE_STORIES) {
    await storyline.deps.writer.execute(streams.project(project.id), decideCreateStory, story, meta());
  }

  print('Storyline: created a demo account on this empty data directory.');
  print(`  sign in:   ${email} / ${config.demoPassword ? '(the password in STORYLINE_DEMO_PASSWORD)' : password}`);
  print(`  API token: ${owner.api_token}`);
  print(`  try:       curl -H 'X-TrackerToken: ${owner.api_token}' ${config.siteUrl}/services/v5/projects/${project.id}/stories`);
}
