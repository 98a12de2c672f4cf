// What the board's browser tests share: signing a person in through the page, reading what the API then
// holds, dragging a card the way a mouse does, and axe-core run inside the page.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import type { PersonHandle, StorylineApp } from '../../api/support/storyline-app.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export function baseUrl(app: StorylineApp): string {
  return `http://127.0.0.1:${app.server.port}`;
}

/** HTTP Basic credentials, as a sign-in on GET /me sends them. */
export function basicAuthorization(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

/** Opens `path` and signs in by pasting the person's API token. */
export async function signInWithToken(page: Page, app: StorylineApp, person: PersonHandle, path = '/'): Promise<void> {
  await signInAt(page, baseUrl(app), person, path);
}

/** The same through another origin (a proxy in front of the server). */
export async function signInAt(page: Page, origin: string, person: PersonHandle, path = '/'): Promise<void> {
  await page.goto(`${origin}${path}`);
  await page.getByLabel('Or paste your API token').fill(person.token);
  await page.getByRole('button', { name: 'Sign in with the token' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** A project of `owner` (in a new account) with `members` added; returns its id. */
export async function projectOf(app: StorylineApp, owner: PersonHandle, name: string, members: PersonHandle[] = [], settings: Record<string, unknown> = {}): Promise<number> {
  const created = await app.api('POST', '/projects', { as: owner, body: { name, new_account_name: `${name} account`, ...settings } });
  if (created.status !== 200) throw new Error(`project not created: ${created.text}`);
  const id = created.json.id as number;
  for (const member of members) {
    const added = await app.api('POST', `/projects/${id}/memberships`, { as: owner, body: { email: member.email, role: 'member' } });
    if (added.status !== 200) throw new Error(`member not added: ${added.text}`);
  }
  return id;
}

export async function storyOf(app: StorylineApp, as: PersonHandle, projectId: number, body: Record<string, unknown>): Promise<number> {
  const created = await app.api('POST', `/projects/${projectId}/stories`, { as, body });
  if (created.status !== 200) throw new Error(`story not created: ${created.text}`);
  return created.json.id as number;
}

/** The project's stories in the API's priority order (names). */
export async function orderOfNames(app: StorylineApp, as: PersonHandle, projectId: number, query: Record<string, string> = {}): Promise<string[]> {
  const stories = await app.api('GET', `/projects/${projectId}/stories`, { as, query: { limit: 500, ...query } });
  return (stories.json as Array<{ name: string }>).map((story) => story.name);
}

/** A story of the project found by its name (through the API's search filter). */
export async function storyNamed(app: StorylineApp, as: PersonHandle, projectId: number, name: string): Promise<{ id: number; current_state: string }> {
  const found = (await app.api('GET', `/projects/${projectId}/stories`, { as, query: { filter: `name:"${name}"` } })).json as Array<{ id: number; name: string; current_state: string }>;
  const story = found.find((item) => item.name === name);
  if (!story) throw new Error(`no story named ${name}`);
  return story;
}

export interface HeldWrite {
  method: string;
  path: string;
  body: unknown;
}

/** The page's story writes (PUT .../stories/{id}), each held until released: what the board shows before the server answers. */
export interface HeldWrites {
  /** The next write the page sent (waits for it, bounded). */
  next(): Promise<HeldWrite>;
  /** Lets the oldest held write go on to the server. */
  release(): void;
}

export async function holdStoryWrites(page: Page, withinMs = 10_000): Promise<HeldWrites> {
  const arrived: HeldWrite[] = [];
  const gates: Array<() => void> = [];
  let wake: (() => void) | null = null;
  await page.route(/\/services\/v5\/projects\/\d+\/stories\/\d+$/, async (route) => {
    const request = route.request();
    if (request.method() !== 'PUT') return route.continue();
    await new Promise<void>((resolve) => {
      gates.push(resolve);
      arrived.push({ method: request.method(), path: new URL(request.url()).pathname, body: request.postDataJSON() as unknown });
      wake?.();
    });
    return route.continue();
  });
  return {
    async next() {
      const until = Date.now() + withinMs;
      while (arrived.length === 0) {
        if (Date.now() > until) throw new Error('the page sent no story write');
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
      return arrived.shift()!;
    },
    release() {
      gates.shift()?.();
    },
  };
}

export function card(page: Page, name: string): Locator {
  return page.locator('.card', { has: page.getByRole('button', { name, exact: true }) });
}

/** Drags a card onto a place as a mouse does (SortableJS's pointer fallback): press, move in steps, release. */
export async function dragCard(page: Page, from: Locator, to: Locator, where: 'above' | 'below' = 'above'): Promise<void> {
  const start = await from.boundingBox();
  const target = await to.boundingBox();
  if (!start || !target) throw new Error('a card to drag is not visible');
  await page.mouse.move(start.x + 20, start.y + start.height / 2);
  await page.mouse.down();
  await page.mouse.move(start.x + 24, start.y + start.height / 2 + 4, { steps: 4 });
  const y = where === 'above' ? target.y + target.height * 0.25 : target.y + target.height * 0.75;
  await page.mouse.move(target.x + 20, y, { steps: 12 });
  await page.mouse.move(target.x + 22, y + (where === 'above' ? -1 : 1), { steps: 2 });
  await page.mouse.up();
}

/**
 * Records every report of the page's Content-Security-Policy from now on (the recorder is added by the
 * test driver, outside the page's policy); `read` answers them as "directive blocked-URI".
 */
export async function recordPolicyViolations(page: Page): Promise<{ read(): Promise<string[]> }> {
  await page.addInitScript(`window.policyViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => window.policyViolations.push(event.violatedDirective + ' ' + event.blockedURI));`);
  return { read: async () => (await page.evaluate('window.policyViolations ?? []')) as string[] };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2 A and AA rules). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  // A string, evaluated in the page (this file is compiled without the DOM's types).
  const violations = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((node) => ({ target: node.target })) })))`)) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Waits (bounded) until `read` answers `expected`, then asserts it. */
export async function expectOrder(read: () => Promise<string[]>, expected: string[], withinMs = 10_000): Promise<void> {
  const until = Date.now() + withinMs;
  let last: string[] = [];
  while (Date.now() < until) {
    last = await read();
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(last).to.deep.equal(expected);
}
