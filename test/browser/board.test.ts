// The board in a real headless Chromium against the real server in-process: signing in both ways,
// projects and stories, Tracker's state buttons, drag and drop and keyboard moves checked against the
// order the API then answers, and the accessibility of the board (axe-core).
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from '../api/support/storyline-app.js';
import { useChromium } from './support/chromium.js';
import { baseUrl, card, dragCard, expectOrder, holdStoryWrites, orderOfNames, projectOf, recordPolicyViolations, seriousViolations, signInWithToken, storyNamed, storyOf } from './support/board-page.js';

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
    const violations = await recordPolicyViolations(page);
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
    // Dragging (SortableJS styles its ghost through the CSSOM) needs nothing the strict policy refuses.
    expect(await violations.read()).to.deep.equal([]);
  });

  it('shows a drop at once, then the place the server gave it, and the server order again when it refuses one', async () => {
    // Velocity 1: One fills Current; a 3-point story dropped below it cannot stay there.
    const id = await projectOf(app, alice, 'Corrected', [], { initial_velocity: 1 });
    await storyOf(app, alice, id, { name: 'One', current_state: 'unstarted', estimate: 1 });
    await storyOf(app, alice, id, { name: 'Two', current_state: 'unstarted', estimate: 1 });
    await storyOf(app, alice, id, { name: 'Big', current_state: 'unstarted', estimate: 3 });
    const gone = await storyOf(app, alice, id, { name: 'Gone', current_state: 'unstarted', estimate: 1 });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);
    await card(page, 'Gone').waitFor();
    const shown = async () => [...(await page.locator('.panel-current .card .story-name').allTextContents()), '|', ...(await page.locator('.panel-backlog .card .story-name').allTextContents())];
    expect(await shown()).to.deep.equal(['One', '|', 'Two', 'Big', 'Gone']);

    // The story PUT is held until the test has seen what the board shows before the server answers.
    const held = await holdStoryWrites(page);
    await dragCard(page, card(page, 'Big'), card(page, 'One'), 'below');
    const sent = await held.next();
    expect(sent.body).to.deep.equal({ before_id: (await storyNamed(app, alice, id, 'Two')).id });
    expect(await shown()).to.deep.equal(['One', 'Big', '|', 'Two', 'Gone']);
    held.release();
    await expectOrder(() => orderOfNames(app, alice, id), ['One', 'Big', 'Two', 'Gone']);
    await expectOrder(shown, ['One', '|', 'Big', 'Two', 'Gone']);

    // A drop next to a story someone deleted meanwhile: refused, said so, and the board shows the server's order.
    await dragCard(page, card(page, 'One'), card(page, 'Gone'), 'above');
    const refused = await held.next();
    expect(refused.body).to.deep.equal({ before_id: gone });
    expect(await shown()).to.deep.equal(['|', 'Big', 'Two', 'One', 'Gone']);
    expect((await app.api('DELETE', `/projects/${id}/stories/${gone}`, { as: alice })).status).to.equal(204);
    held.release();
    await page.getByRole('alert').filter({ hasText: `Story ${gone} does not exist` }).waitFor();
    await expectOrder(shown, ['One', '|', 'Big', 'Two']);
    expect(await orderOfNames(app, alice, id)).to.deep.equal(['One', 'Big', 'Two']);
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

    // Each panel scrolls on its own: the wheel over the Icebox scrolls it alone, not the page or the Backlog.
    const scrollTop = (selector: string) => page.locator(selector).evaluate((node) => (node as unknown as { scrollTop: number }).scrollTop);
    const pageScroll = () => page.evaluate('document.scrollingElement.scrollTop') as Promise<number>;
    await page.locator('.panel-icebox .panel-body').hover();
    await page.mouse.wheel(0, 100_000);
    await expectOrder(async () => [String((await scrollTop('.panel-icebox .panel-body')) > 0)], ['true']);
    expect(await scrollTop('.panel-backlog .panel-body')).to.equal(0);
    expect(await pageScroll()).to.equal(0);
    expect(await card(page, 'Iced 90').isVisible()).to.equal(true);
    await page.getByRole('heading', { name: 'Long lists', level: 1 }).waitFor();
    expect(await page.getByRole('heading', { name: 'Long lists', level: 1 }).boundingBox()).to.have.property('y').that.is.within(0, 120);
    await card(page, 'Iced 90').getByRole('button', { name: 'Iced 90' }).click();
    await page.getByRole('article', { name: /Story #/ }).getByLabel('Name').waitFor();
  });

  it('draws each card with its type, estimate, name, labels, owners’ initials, blocked marker and comment count, under iteration headers', async () => {
    const carol = await app.person('Carol Cardholder');
    const id = await projectOf(app, alice, 'Cards', [carol], { initial_velocity: 2, bugs_and_chores_are_estimatable: true });
    const full = await storyOf(app, alice, id, {
      name: 'Full card',
      story_type: 'bug',
      current_state: 'started',
      estimate: 2,
      labels: ['ops', 'ui'],
      owner_ids: [alice.id, carol.id],
      comments: [{ text: 'one' }, { text: 'two' }],
    });
    expect((await app.api('POST', `/projects/${id}/stories/${full}/blockers`, { as: alice, body: { description: 'Waiting on ops' } })).status).to.equal(200);
    await storyOf(app, alice, id, { name: 'A chore', story_type: 'chore', current_state: 'unstarted', estimate: 1 });
    await storyOf(app, alice, id, { name: 'A feature', story_type: 'feature', current_state: 'unstarted', estimate: 3 });
    await storyOf(app, alice, id, { name: 'A release', story_type: 'release', current_state: 'unstarted' });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);

    const shown = card(page, 'Full card');
    await shown.locator('.blocked').waitFor();
    expect(await shown.getByRole('img').getAttribute('aria-label')).to.equal('bug');
    expect(await shown.locator('.estimate').textContent()).to.equal('2');
    expect(await shown.getByRole('button', { name: /^Stories labelled / }).allTextContents()).to.deep.equal(['ops', 'ui']);
    const people = (await app.api('GET', `/projects/${id}/memberships`, { as: alice })).json as Array<{ person: { id: number; name: string; initials: string } }>;
    const initials = [alice.id, carol.id].map((person) => people.find((item) => item.person.id === person)!.person);
    expect(await shown.locator('abbr.owner').evaluateAll((nodes) => nodes.map((node) => `${(node as unknown as { title: string }).title}=${node.textContent}`))).to.deep.equal(
      initials.map((person) => `${person.name}=${person.initials}`),
    );
    expect(await shown.locator('.blocked').textContent()).to.equal('Blocked');
    expect(await shown.getByLabel('2 comments').textContent()).to.equal('2');
    expect(await shown.getByRole('button', { name: 'Finish', exact: true }).count()).to.equal(1);
    for (const [name, type] of [['A chore', 'chore'], ['A feature', 'feature'], ['A release', 'release']]) {
      expect(await card(page, name).getByRole('img').getAttribute('aria-label')).to.equal(type);
      expect(await card(page, name).locator('.blocked, .comment-count, abbr.owner').count()).to.equal(0);
    }

    // Each iteration's header: number, dates, and its points against the velocity, as the API planned them.
    const iterations = (await app.api('GET', `/projects/${id}/iterations`, { as: alice, query: { scope: 'current_backlog', fields: 'number,points,velocity' } })).json as Array<{ number: number; points: number; velocity: number }>;
    expect(iterations.length).to.be.greaterThan(1);
    const headers = [await page.locator('.panel-current .panel-subtitle').textContent(), ...(await page.locator('.panel-backlog .iteration-header').allTextContents())];
    expect(headers).to.have.length(iterations.length);
    iterations.forEach((iteration, index) => {
      expect(headers[index]).to.match(new RegExp(`^Iteration ${iteration.number} · .+ – .+ · ${iteration.points} of ${iteration.velocity} points$`));
    });
  });

  it('offers a viewer no write: no state buttons, point scale, drag, keyboard move, Add story or editable story', async () => {
    const viewer = await app.person('Vera Viewer');
    const id = await projectOf(app, alice, 'Read only');
    expect((await app.api('POST', `/projects/${id}/memberships`, { as: alice, body: { email: viewer.email, role: 'viewer' } })).status).to.equal(200);
    await storyOf(app, alice, id, { name: 'Look only', current_state: 'started', estimate: 1 });
    await storyOf(app, alice, id, { name: 'Unestimated look', current_state: 'unstarted' });
    await storyOf(app, alice, id, { name: 'Iced look', estimate: 1 });
    const page = await chromium.newPage();
    const writes: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET') writes.push(`${request.method()} ${request.url()}`);
    });
    await signInWithToken(page, app, viewer, `/n/projects/${id}`);
    await card(page, 'Iced look').waitFor();
    expect(await page.locator('.card .state-button, .card .point-scale').count()).to.equal(0);
    expect(await page.locator('.card.draggable').count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Add story' }).count()).to.equal(0);
    await card(page, 'Iced look').getByRole('button', { name: 'Iced look' }).focus();
    await page.keyboard.press('Alt+ArrowUp');
    await card(page, 'Look only').getByRole('button', { name: 'Look only' }).click();
    const detail = page.getByRole('article', { name: /Story #/ });
    await detail.getByLabel('Name').waitFor();
    expect(await detail.getByLabel('Name').isDisabled()).to.equal(true);
    expect(await detail.getByRole('button', { name: 'Finish' }).count()).to.equal(0);
    expect(writes).to.deep.equal([]);

    // The project's member gets them on the same cards.
    const owner = await chromium.newPage();
    await signInWithToken(owner, app, alice, `/n/projects/${id}`);
    await card(owner, 'Look only').getByRole('button', { name: 'Finish', exact: true }).waitFor();
    await card(owner, 'Unestimated look').getByRole('group', { name: 'Estimate "Unestimated look"' }).waitFor();
    expect(await owner.locator('.card.draggable').count()).to.equal(3);
  });

  it('adds a story at the top of the Backlog and at the top of the Icebox', async () => {
    const id = await projectOf(app, alice, 'Adding', [], { initial_velocity: 1 });
    await storyOf(app, alice, id, { name: 'In Current', current_state: 'unstarted', estimate: 1 });
    await storyOf(app, alice, id, { name: 'Planned next', current_state: 'unstarted', estimate: 1 });
    await storyOf(app, alice, id, { name: 'Old ice' });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);
    await card(page, 'Old ice').waitFor();
    for (const [panel, label, name] of [['backlog', 'New story in the Backlog', 'New on top'], ['icebox', 'New story in the Icebox', 'New ice']]) {
      await page.locator(`.panel-${panel}`).getByRole('button', { name: 'Add story' }).click();
      await page.getByLabel(label).fill(name);
      await page.locator(`.panel-${panel}`).getByRole('button', { name: 'Save' }).click();
      await card(page, name).waitFor();
    }
    expect(await orderOfNames(app, alice, id)).to.deep.equal(['In Current', 'New on top', 'Planned next', 'New ice', 'Old ice']);
    // Unestimated, the new story fits in Current: the server planned it there, just above the Backlog's first story.
    await expectOrder(() => page.locator('.panel-current .card .story-name, .panel-backlog .card .story-name').allTextContents(), ['In Current', 'New on top', 'Planned next']);
    await expectOrder(() => page.locator('.panel-icebox .card .story-name').allTextContents(), ['New ice', 'Old ice']);
  });

  it('lists the person’s unfinished stories in My work and the project’s epics in Epics, which open in place', async () => {
    const dan = await app.person('Dan Doer');
    const id = await projectOf(app, alice, 'Mine', [dan]);
    await storyOf(app, alice, id, { name: 'Mine started', current_state: 'started', estimate: 1, owner_ids: [alice.id] });
    await storyOf(app, alice, id, { name: 'Mine iced', owner_ids: [alice.id] });
    await storyOf(app, alice, id, { name: 'Mine accepted', current_state: 'accepted', estimate: 1, owner_ids: [alice.id] });
    await storyOf(app, alice, id, { name: 'Dan’s', current_state: 'started', estimate: 1, owner_ids: [dan.id] });
    const epic = (await app.api('POST', `/projects/${id}/epics`, { as: alice, body: { name: 'Checkout' } })).json as { id: number; label: { name: string } };
    await storyOf(app, alice, id, { name: 'Pay', current_state: 'unstarted', labels: [epic.label.name] });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${id}`);
    await page.getByRole('button', { name: 'My work', exact: true }).click();
    const mine = page.locator('.panel-mywork');
    await mine.getByRole('status').waitFor();
    expect((await mine.locator('.card .story-name').allTextContents()).sort()).to.deep.equal(['Mine iced', 'Mine started']);

    await page.getByRole('button', { name: 'Epics', exact: true }).click();
    await page.locator('.panel-epics').getByRole('button', { name: 'Checkout', exact: true }).click();
    const detail = page.getByRole('article', { name: 'Epic: Checkout' });
    await detail.locator('.card', { hasText: 'Pay' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal(`/epic/show/${epic.id}`);
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
