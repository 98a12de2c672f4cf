// The board in a real headless Chromium against the real server in-process: signing in both ways,
// projects and stories, Tracker's state buttons, drag and drop and keyboard moves checked against the
// order the API then answers, and the accessibility of the board (axe-core).
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from '../api/support/storyline-app.js';
import { useChromium } from './support/chromium.js';
import { baseUrl, card, dragCard, expectOrder, orderOfNames, projectOf, seriousViolations, signInWithToken, storyOf } from './support/board-page.js';

describe('browser: the board', function () {
  this.timeout(90_000);
  const chromium = useChromium();
  let app: StorylineApp;
  let alice: PersonHandle;

  before(async () => {
    app = await storylineApp();
    alice = await app.person('Alice Able');
  });
  after(async () => {
    await app?.close();
  });

  it('signs in with email and password, creates a project and stories, and the API holds them', async () => {
    const person = await app.person('Pat Newcomer');
    const page = await chromium.newPage();
    await page.goto(`${baseUrl(app)}/`);
    await page.getByLabel('Email or username').fill(person.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Your projects' }).waitFor();
    expect(await page.evaluate('Object.keys(sessionStorage)')).to.deep.equal(['storyline.token']);
    expect(await page.evaluate('document.cookie')).to.equal('');

    // Someone in no account names one, as Tracker's first project did.
    await page.getByLabel('Project name').fill('Apollo');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByLabel('Account name').fill('Pat’s team');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Apollo', level: 1 }).waitFor();
    const projectId = Number(new URL(page.url()).pathname.split('/').pop());

    for (const name of ['Sign-up form', 'Password reset']) {
      await page.locator('.panel-backlog').getByRole('button', { name: 'Add story' }).click();
      await page.getByLabel('New story in the Backlog').fill(name);
      await page.locator('.panel-backlog').getByRole('button', { name: 'Save' }).click();
      await card(page, name).waitFor();
    }
    await page.locator('.panel-icebox').getByRole('button', { name: 'Add story' }).click();
    await page.getByLabel('New story in the Icebox').fill('Dark mode');
    await page.locator('.panel-icebox').getByLabel('Type').selectOption('chore');
    await page.locator('.panel-icebox').getByRole('button', { name: 'Save' }).click();
    await page.locator('.panel-icebox').locator('.card', { hasText: 'Dark mode' }).waitFor();

    const stories = (await app.api('GET', `/projects/${projectId}/stories`, { as: person })).json as Array<{ name: string; current_state: string; story_type: string }>;
    expect(stories.map(({ name, current_state, story_type }) => ({ name, current_state, story_type }))).to.deep.equal([
      { name: 'Sign-up form', current_state: 'unstarted', story_type: 'feature' },
      { name: 'Password reset', current_state: 'unstarted', story_type: 'feature' },
      { name: 'Dark mode', current_state: 'unscheduled', story_type: 'chore' },
    ]);
  });

  it('signs in by pasting a token, signs out, and brings back the sign-in when the token is refused', async () => {
    const person = await app.person('Tina Token');
    const page = await chromium.newPage();
    await page.goto(`${baseUrl(app)}/`);
    await page.getByLabel('Or paste your API token').fill('0123456789abcdef0123456789abcdef');
    await page.getByRole('button', { name: 'Sign in with the token' }).click();
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    await signInWithToken(page, app, person);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Storyline' }).waitFor();
    expect(await page.evaluate('sessionStorage.length')).to.equal(0);

    // The projects page's first reads must be answered before the token is rotated: one refused in this
    // page signs it out (and forgets the token) before the reload could show the refusal.
    const firstReads = Promise.all(['/projects', '/my/notifications'].map((path) => page.waitForResponse((response) => new URL(response.url()).pathname.endsWith(path))));
    await signInWithToken(page, app, person);
    await firstReads;
    await app.storyline.deps.secrets.rotateToken(person.id);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Storyline' }).waitFor();
    await page.getByText('the API token was refused').waitFor();
  });

  it('lists the person’s projects with their current iteration and velocity', async () => {
    const id = await projectOf(app, alice, 'Listed', [], { initial_velocity: 7 });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice);
    const row = page.getByRole('row', { name: /Listed/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).to.deep.equal(['Listed', '1', '7']);
    await row.getByRole('link', { name: 'Listed' }).click();
    await page.waitForURL(`${baseUrl(app)}/n/projects/${id}`);
  });

  it('estimates, starts, finishes, delivers, accepts and rejects with the card buttons', async () => {
    const id = await projectOf(app, alice, 'Workflow');
    await storyOf(app, alice, id, { name: 'Accept me', current_state: 'unstarted' });
    await storyOf(app, alice, id, { name: 'Reject me', current_state: 'unstarted', estimate: 1 });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);
    const states = async () => Object.fromEntries(((await app.api('GET', `/projects/${id}/stories`, { as: alice })).json as Array<{ name: string; current_state: string; estimate?: number }>).map((story) => [story.name, [story.current_state, story.estimate ?? null]]));

    const accept = card(page, 'Accept me');
    // An unestimated feature offers the point scale before Start.
    expect(await accept.getByRole('button', { name: 'Start' }).count()).to.equal(0);
    await accept.getByRole('group', { name: 'Estimate "Accept me"' }).getByRole('button', { name: '2 points' }).click();
    for (const [button, state] of [['Start', 'started'], ['Finish', 'finished'], ['Deliver', 'delivered'], ['Accept', 'accepted']] as const) {
      await accept.getByRole('button', { name: button, exact: true }).click();
      await accept.and(page.locator(`.state-${state}`)).waitFor();
    }
    const reject = card(page, 'Reject me');
    for (const [button, state] of [['Start', 'started'], ['Finish', 'finished'], ['Deliver', 'delivered'], ['Reject', 'rejected'], ['Restart', 'started']] as const) {
      await reject.getByRole('button', { name: button, exact: true }).click();
      await reject.and(page.locator(`.state-${state}`)).waitFor();
    }
    expect(await states()).to.deep.equal({ 'Accept me': ['accepted', 2], 'Reject me': ['started', 1] });
  });

  it('moves a story by drag and drop within the Backlog and from the Icebox, in the order the API then answers', async () => {
    // Velocity 1: Current takes one story, the Backlog the rest.
    const id = await projectOf(app, alice, 'Dragging', [], { initial_velocity: 1 });
    for (const name of ['One', 'Two', 'Three', 'Four']) await storyOf(app, alice, id, { name, current_state: 'unstarted', estimate: 1 });
    await storyOf(app, alice, id, { name: 'Iced' });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);
    await card(page, 'Four').waitFor();
    expect(await page.locator('.panel-current .card .story-name').allTextContents()).to.deep.equal(['One']);

    await dragCard(page, card(page, 'Four'), card(page, 'Two'), 'above');
    await expectOrder(() => orderOfNames(app, alice, id, { with_state: 'unstarted' }), ['One', 'Four', 'Two', 'Three']);
    await dragCard(page, card(page, 'Iced'), card(page, 'Two'), 'above');
    await expectOrder(() => orderOfNames(app, alice, id), ['One', 'Four', 'Iced', 'Two', 'Three']);
    const iced = (await app.api('GET', `/projects/${id}/stories`, { as: alice, query: { filter: 'name:Iced' } })).json[0];
    expect(iced.current_state).to.equal('unstarted');
    // The board shows what the server planned: the panels read again.
    await page.locator('.panel-backlog .card', { hasText: 'Iced' }).waitFor();
    await expectOrder(async () => page.locator('.panel-current .card .story-name, .panel-backlog .card .story-name').allTextContents(), ['One', 'Four', 'Iced', 'Two', 'Three']);

    // Back to the Icebox: the state follows (unscheduled).
    await dragCard(page, card(page, 'Two'), page.locator('.panel-icebox .story-list'), 'above');
    await expectOrder(() => orderOfNames(app, alice, id, { with_state: 'unscheduled' }), ['Two']);
  });

  it('moves a story with Alt+Up and Alt+Down, keeping the focus on it', async () => {
    const id = await projectOf(app, alice, 'Keys', [], { initial_velocity: 1 });
    for (const name of ['Alpha', 'Beta', 'Gamma']) await storyOf(app, alice, id, { name, current_state: 'unstarted', estimate: 1 });
    await storyOf(app, alice, id, { name: 'Cold' });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);
    await card(page, 'Gamma').getByRole('button', { name: 'Gamma' }).focus();
    await page.keyboard.press('Alt+ArrowUp');
    await expectOrder(() => orderOfNames(app, alice, id), ['Alpha', 'Gamma', 'Beta', 'Cold']);
    await expectOrder(async () => [String(await page.evaluate('document.activeElement?.textContent'))], ['Gamma']);
    // The first Icebox story steps up across the boundary into the end of the Backlog.
    await card(page, 'Cold').getByRole('button', { name: 'Cold' }).focus();
    await page.keyboard.press('Alt+ArrowUp');
    await expectOrder(() => orderOfNames(app, alice, id, { with_state: 'unstarted' }), ['Alpha', 'Gamma', 'Beta', 'Cold']);
    // the board has shown that order too (its own move and the live echo settled) before the next key
    await expectOrder(() => page.locator('.panel-current .card .story-name, .panel-backlog .card .story-name').allTextContents(), ['Alpha', 'Gamma', 'Beta', 'Cold']);
    await card(page, 'Alpha').getByRole('button', { name: 'Alpha' }).focus();
    await page.keyboard.press('Alt+ArrowDown');
    await expectOrder(() => orderOfNames(app, alice, id), ['Gamma', 'Alpha', 'Beta', 'Cold']);
  });

  it('shows and hides panels, and pages back through done iterations', async () => {
    const id = await projectOf(app, alice, 'History', [], { start_date: '2023-10-02', week_start_day: 'Monday' });
    // One accepted story in each of the eight weeks before the test clock's current iteration.
    for (let week = 0; week < 8; week += 1) {
      await storyOf(app, alice, id, { name: `Done ${week + 1}`, current_state: 'accepted', estimate: 1, accepted_at: Date.UTC(2023, 9, 3 + week * 7) });
    }
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);
    await page.getByRole('button', { name: 'Done', exact: true }).click();
    const done = page.locator('.panel-done');
    await done.locator('summary').first().waitFor();
    const iterations = (await app.api('GET', `/projects/${id}/iterations`, { as: alice, query: { scope: 'done' } })).headers['x-tracker-pagination-total'];
    expect(await done.locator('summary').count()).to.equal(5);
    await done.getByRole('button', { name: /Show older iterations/ }).click();
    await expectOrder(async () => [String(await done.locator('summary').count())], [String(Math.min(10, Number(iterations)))]);
    // Week 5 of the project (from 2023-10-30) holds the fifth acceptance.
    await done.locator('summary', { hasText: /^Iteration 5 ·/ }).click();
    await done.locator('.card', { hasText: 'Done 5' }).waitFor();

    await page.getByRole('button', { name: 'Hide Icebox' }).click();
    expect(await page.locator('.panel-icebox').count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Icebox', exact: true }).getAttribute('aria-pressed')).to.equal('false');
    await page.reload();
    await page.locator('.panel-done').waitFor();
    expect(await page.locator('.panel-icebox').count()).to.equal(0);
  });

  it('shows every card of a long Backlog and Icebox (the first ones at once, the rest in the frames after)', async () => {
    const id = await projectOf(app, alice, 'Long lists', [], { initial_velocity: 1 });
    for (let n = 1; n <= 90; n += 1) await storyOf(app, alice, id, { name: `Planned ${n}`, current_state: 'unstarted', estimate: 1 });
    for (let n = 1; n <= 90; n += 1) await storyOf(app, alice, id, { name: `Iced ${n}` });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);
    await expectOrder(async () => [String(await page.locator('.panel-current .card, .panel-backlog .card').count()), String(await page.locator('.panel-icebox .card').count())], ['90', '90']);
    expect(await page.locator('.panel-backlog .card .story-name').last().textContent()).to.equal('Planned 90');
    await card(page, 'Iced 90').getByRole('button', { name: 'Iced 90' }).click();
    await page.getByRole('article', { name: /Story #/ }).getByLabel('Name').waitFor();
  });

  it('has no serious or critical accessibility violation on the board', async () => {
    const id = await projectOf(app, alice, 'Accessible');
    await storyOf(app, alice, id, { name: 'Started one', current_state: 'started', estimate: 1, labels: ['ops'] });
    await storyOf(app, alice, id, { name: 'Unestimated', current_state: 'unstarted' });
    await storyOf(app, alice, id, { name: 'Delivered one', current_state: 'delivered', estimate: 2, story_type: 'feature' });
    await storyOf(app, alice, id, { name: 'A bug', story_type: 'bug' });
    await app.api('POST', `/projects/${id}/epics`, { as: alice, body: { name: 'Big epic' } });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);
    await card(page, 'A bug').waitFor();
    for (const panel of ['Done', 'Epics', 'My work', 'Members']) await page.getByRole('button', { name: panel, exact: true }).click();
    await page.locator('.panel-members .member-list li').first().waitFor();
    expect(await seriousViolations(page)).to.deep.equal([]);
    await page.getByRole('button', { name: /Notifications/ }).click();
    await page.getByRole('dialog', { name: 'Notifications' }).waitFor();
    expect(await seriousViolations(page)).to.deep.equal([]);
  });
});
