// A story opened on the board (in a real headless Chromium): its addresses, tasks, comments with an
// uploaded file, Markdown that cannot run script, labels and owners, the warning when someone else
// changed the project meanwhile; search, a label filter, notifications; axe on the open story.
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from '../api/support/storyline-app.js';
import { useChromium } from './support/chromium.js';
import { baseUrl, card, expectOrder, projectOf, recordPolicyViolations, seriousViolations, signInWithToken, storyOf } from './support/board-page.js';

/** A 1x1 PNG. */
const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';

describe('browser: a story on the board', function () {
  this.timeout(90_000);
  const chromium = useChromium();
  let app: StorylineApp;
  let alice: PersonHandle;
  let bob: PersonHandle;
  let projectId: number;

  before(async () => {
    app = await storylineApp();
    alice = await app.person('Alice Able');
    bob = await app.person('Bob Baker');
    projectId = await projectOf(app, alice, 'Details', [bob]);
  });
  after(async () => {
    await app?.close();
  });

  const story = async (id: number, fields = ':default,tasks,comments(:default,file_attachments),owner_ids,blockers') =>
    (await app.api('GET', `/projects/${projectId}/stories/${id}`, { as: alice, query: { fields } })).json;

  it('opens at /story/show/{id}, adds a task and a comment with an uploaded file, and the API holds them', async () => {
    const id = await storyOf(app, alice, projectId, { name: 'Upload avatars', current_state: 'unstarted' });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/story/show/${id}`);
    const detail = page.getByRole('article', { name: `Story #${id}` });
    await detail.waitFor();
    expect(await detail.getByLabel('Name').inputValue()).to.equal('Upload avatars');
    expect(await page.locator('.card.selected .story-name').textContent()).to.equal('Upload avatars');

    await detail.getByLabel('New task').fill('Resize to 128px');
    await detail.getByRole('button', { name: 'Add task' }).click();
    await detail.getByRole('checkbox', { name: 'Resize to 128px' }).waitFor();
    await detail.getByRole('checkbox', { name: 'Resize to 128px' }).check();
    await expectOrder(async () => (await story(id)).tasks.map((task: { description: string; complete: boolean }) => `${task.description}:${task.complete}`), ['Resize to 128px:true']);

    await detail.getByLabel('New comment').fill('The **spec** is attached');
    await detail.getByLabel('Attach a file').setInputFiles({ name: 'spec.txt', mimeType: 'text/plain', buffer: Buffer.from('avatars: 128px\n') });
    await detail.getByRole('button', { name: 'Post comment' }).click();
    await detail.getByRole('button', { name: 'Download spec.txt' }).waitFor();
    expect(await detail.locator('.comment strong', { hasText: 'spec' }).count()).to.equal(1);
    const comments = (await story(id)).comments as Array<{ text: string; file_attachments: Array<{ filename: string; size: number }> }>;
    expect(comments.map((comment) => ({ text: comment.text, files: comment.file_attachments.map((file) => file.filename) }))).to.deep.equal([
      { text: 'The **spec** is attached', files: ['spec.txt'] },
    ]);
    expect(await card(page, 'Upload avatars').getByLabel('1 comment').count()).to.equal(1);

    // The file comes back through the API with the token (never a token in a URL).
    const download = page.waitForEvent('download');
    await detail.getByRole('button', { name: 'Download spec.txt' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).to.equal('spec.txt');
    expect(saved.url()).to.match(/^blob:/);

    // An image shows a preview, fetched with the token (its thumbnail once the server made it).
    await detail.getByLabel('Attach a file').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(ONE_PIXEL_PNG, 'base64') });
    await detail.getByRole('button', { name: 'Post comment' }).click();
    const preview = detail.getByRole('img', { name: 'dot.png' });
    await preview.waitFor();
    expect(await preview.getAttribute('src')).to.match(/^blob:/);
    const decoded = await preview.evaluate((img) => {
      const element = img as unknown as { decode(): Promise<void>; naturalWidth: number };
      return element.decode().then(() => element.naturalWidth);
    });
    expect(decoded).to.equal(1);
  });

  it('reorders tasks, adds and resolves a blocker, and completes an @mention from the members', async () => {
    const id = await storyOf(app, alice, projectId, { name: 'Ordered work', current_state: 'unstarted', tasks: [{ description: 'First step' }, { description: 'Second step' }] });
    const bobName = (await app.api('GET', `/projects/${projectId}/memberships`, { as: alice })).json.find((item: { person: { id: number } }) => item.person.id === bob.id).person.username as string;
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/story/show/${id}`);
    const detail = page.getByRole('article', { name: `Story #${id}` });
    await detail.getByRole('button', { name: 'Move task "Second step" up' }).click();
    await expectOrder(async () => (await story(id)).tasks.map((task: { description: string }) => task.description), ['Second step', 'First step']);
    await expectOrder(async () => detail.locator('.tasks li').allTextContents().then((items) => items.map((item) => item.replace(/[↑↓×]/g, '').trim())), ['Second step', 'First step']);

    await detail.getByLabel('What blocks this story?').fill('Waiting on the API');
    await detail.getByRole('button', { name: 'Add blocker' }).click();
    await card(page, 'Ordered work').locator('.blocked', { hasText: 'Blocked' }).waitFor();
    await detail.getByRole('checkbox', { name: /Waiting on the API/ }).check();
    await expectOrder(async () => (await story(id)).blockers.map((blocker: { resolved: boolean }) => String(blocker.resolved)), ['true']);
    await card(page, 'Ordered work').locator('.blocked').waitFor({ state: 'detached' });

    const comment = detail.getByLabel(/^New comment/);
    await comment.click();
    await comment.pressSequentially(`Thanks @${bobName.slice(0, 2)}`);
    await detail.getByRole('listbox', { name: 'Members to mention' }).getByRole('option', { name: new RegExp(`@${bobName}`) }).waitFor();
    await comment.press('Enter');
    expect(await comment.inputValue()).to.equal(`Thanks @${bobName} `);
    await comment.pressSequentially('for the review');
    await detail.getByRole('button', { name: 'Post comment' }).click();
    await expectOrder(async () => (await story(id)).comments.map((item: { text: string }) => item.text), [`Thanks @${bobName} for the review`]);
  });

  it('renders Markdown as sanitised HTML and never runs script from a description or a comment', async () => {
    const hostile = '# Heading\n\n<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>\n\n[link](javascript:window.pwned=3) and [ok](https://example.com)';
    const id = await storyOf(app, alice, projectId, { name: '<b>not bold</b>', description: hostile, comments: [{ text: '<svg onload="window.pwned=4">' }] });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/story/show/${id}`);
    const detail = page.getByRole('article', { name: `Story #${id}` });
    await detail.getByRole('heading', { name: 'Heading' }).waitFor();
    await card(page, '<b>not bold</b>').waitFor();
    expect(await page.locator('.card b').count()).to.equal(0);
    expect(await detail.locator('.markdown img, .markdown script, .markdown svg').count()).to.equal(0);
    expect(await detail.locator('.markdown').first().textContent()).to.contain('<img src=x onerror=');
    expect(await detail.getByRole('link', { name: 'ok' }).getAttribute('rel')).to.equal('noopener noreferrer');
    expect(await detail.getByText('link', { exact: true }).getAttribute('href')).to.equal(null);
    expect(await page.evaluate('window.pwned')).to.equal(undefined);
  });

  it('edits labels (completed from the project’s), owners, estimate and description', async () => {
    await app.api('POST', `/projects/${projectId}/labels`, { as: alice, body: { name: 'frontend' } });
    const id = await storyOf(app, alice, projectId, { name: 'Labelled', current_state: 'unstarted' });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/story/show/${id}`);
    const detail = page.getByRole('article', { name: `Story #${id}` });
    await detail.waitFor();
    expect(await page.locator('#project-labels option').evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value))).to.include('frontend');
    await detail.getByLabel('Add a label').fill('frontend');
    await detail.getByRole('button', { name: 'Add label' }).click();
    await detail.getByRole('button', { name: 'Remove label frontend' }).waitFor();
    await detail.getByRole('checkbox', { name: 'Bob Baker' }).check();
    await detail.getByLabel('Estimate').selectOption('3');
    await detail.getByRole('button', { name: 'Edit description' }).click();
    await detail.getByLabel('Description (Markdown)').fill('Needs *care*');
    await detail.getByRole('button', { name: 'Save description' }).click();
    await detail.locator('.markdown em', { hasText: 'care' }).waitFor();
    await expectOrder(async () => {
      const now = await story(id, 'labels,owner_ids,estimate,description');
      return [now.labels.map((label: { name: string }) => label.name).join(','), now.owner_ids.join(','), String(now.estimate), now.description];
    }, ['frontend', String(bob.id), '3', 'Needs *care*']);
    await card(page, 'Labelled').locator('abbr[title="Bob Baker"]').waitFor();
  });

  it('tells the person when someone else changed the project meanwhile, and shows the latest state', async () => {
    const id = await storyOf(app, alice, projectId, { name: 'Contended', current_state: 'unstarted', estimate: 1 });
    const page = await chromium.newPage();
    // This board gets no live stream, so it cannot learn of Bob's change before Alice saves (with the
    // stream, a busy machine let the board read Bob's version first, and no warning was due).
    await page.route(/\/activity\/stream$/, (route) => route.abort());
    await signInWithToken(page, app, alice, `/story/show/${id}`);
    const detail = page.getByRole('article', { name: `Story #${id}` });
    await detail.waitFor();
    // Bob writes while Alice looks.
    await app.api('PUT', `/projects/${projectId}/stories/${id}`, { as: bob, body: { name: 'Contended (renamed by Bob)' } });
    await detail.getByLabel('Estimate').selectOption('2');
    const notice = page.getByRole('alert').filter({ hasText: 'Someone else changed this project' });
    await notice.waitFor();
    await expectOrder(async () => [await detail.getByLabel('Name').inputValue()], ['Contended (renamed by Bob)']);
    expect((await story(id, 'estimate')).estimate).to.equal(2);
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    expect(await notice.count()).to.equal(0);
    // A write that names the current version brings no warning.
    await detail.getByLabel('Estimate').selectOption('3');
    await expectOrder(async () => [String((await story(id, 'estimate')).estimate)], ['3']);
    expect(await page.getByRole('alert').filter({ hasText: 'Someone else changed this project' }).count()).to.equal(0);
  });

  it('searches with Tracker’s grammar, filters by a clicked label, and opens a result', async () => {
    await storyOf(app, alice, projectId, { name: 'Search me please', labels: ['searchable'], current_state: 'unstarted' });
    await storyOf(app, alice, projectId, { name: 'Not me', current_state: 'unstarted' });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${projectId}`);
    await page.getByLabel('Search stories').fill('label:searchable');
    await page.getByRole('button', { name: 'Search', exact: true }).first().click();
    const results = page.locator('.panel-search');
    await results.getByRole('status').filter({ hasText: '1 story' }).waitFor();
    expect(await results.locator('.card .story-name').allTextContents()).to.deep.equal(['Search me please']);
    await page.getByLabel('Search stories').fill('state:nonsense(');
    await page.getByRole('button', { name: 'Search', exact: true }).first().click();
    await results.getByRole('alert').waitFor();

    await card(page, 'Search me please').first().getByRole('button', { name: 'Stories labelled searchable' }).click();
    await results.getByRole('status').filter({ hasText: '1 story' }).waitFor();
    await results.getByRole('button', { name: 'Search me please' }).click();
    await page.getByRole('article', { name: /Story #/ }).getByLabel('Name').waitFor();
    expect(await page.getByRole('article', { name: /Story #/ }).getByLabel('Name').inputValue()).to.equal('Search me please');
    expect(new URL(page.url()).pathname).to.match(/^\/story\/show\/\d+$/);
  });

  it('shows unread notifications on the bell, opens their story and marks them read', async () => {
    const id = await storyOf(app, bob, projectId, { name: 'Yours now', current_state: 'unstarted' });
    await app.api('PUT', `/projects/${projectId}/stories/${id}`, { as: bob, body: { owner_ids: [alice.id] } });
    const other = await storyOf(app, bob, projectId, { name: 'Yours too', current_state: 'unstarted' });
    await app.api('PUT', `/projects/${projectId}/stories/${other}`, { as: bob, body: { owner_ids: [alice.id] } });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/n/projects/${projectId}`);
    const bell = page.getByRole('button', { name: /^Notifications: [1-9]\d* unread$/ });
    await bell.waitFor();
    await bell.click();
    const dialog = page.getByRole('dialog', { name: 'Notifications' });
    await dialog.getByRole('button', { name: /made you an owner of this story — Yours now/ }).click();
    await page.getByRole('article', { name: `Story #${id}` }).waitFor();
    await expectOrder(async () => {
      const list = (await app.api('GET', '/my/notifications', { as: alice })).json as Array<{ story?: { id: number }; read_at?: string }>;
      return list.filter((item) => item.story?.id === id).map((item) => String(Boolean(item.read_at)));
    }, ['true']);
    await page.getByRole('button', { name: /^Notifications/ }).click();
    await page.getByRole('dialog', { name: 'Notifications' }).getByRole('button', { name: 'Mark all as read' }).click();
    await page.getByRole('button', { name: 'Notifications: 0 unread' }).waitFor();
    await expectOrder(async () => {
      const list = (await app.api('GET', '/my/notifications', { as: alice })).json as Array<{ read_at?: string }>;
      return [String(list.every((item) => Boolean(item.read_at)))];
    }, ['true']);
  });

  it('sets type, state, requester and reviews from the detail, and shows the story’s activity', async () => {
    const id = await storyOf(app, alice, projectId, { name: 'Reviewed work', current_state: 'unstarted', estimate: 1 });
    const types = (await app.api('GET', `/projects/${projectId}/review_types`, { as: alice })).json as Array<{ id: number; name: string; hidden?: boolean }>;
    const type = types.find((item) => !item.hidden)!;
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/story/show/${id}`);
    const detail = page.getByRole('article', { name: `Story #${id}` });
    await detail.getByLabel('Name').waitFor();
    await detail.getByLabel('Type').selectOption('chore');
    await expectOrder(async () => [(await story(id, 'story_type')).story_type], ['chore']);
    await detail.getByLabel('State').selectOption('started');
    await expectOrder(async () => [(await story(id, 'current_state')).current_state], ['started']);
    await detail.getByLabel('Requester').selectOption({ label: 'Bob Baker' });
    await expectOrder(async () => [String((await story(id, 'requested_by_id')).requested_by_id)], [String(bob.id)]);

    await detail.getByLabel('New review').selectOption({ label: type.name });
    await detail.getByRole('button', { name: 'Add review' }).click();
    const review = detail.locator('.review', { hasText: type.name });
    await review.waitFor();
    await review.getByLabel('Reviewer').selectOption({ label: 'Bob Baker' });
    await expectOrder(async () => (await story(id, 'reviews')).reviews.map((item: { reviewer_id?: number }) => String(item.reviewer_id)), [String(bob.id)]);
    await review.getByLabel('Status').selectOption('pass');
    await expectOrder(async () => (await story(id, 'reviews')).reviews.map((item: { review_type_id: number; status: string }) => `${item.review_type_id}:${item.status}`), [`${type.id}:pass`]);

    // The story's activity, newest first, as GET .../activity answers it.
    const activity = (await app.api('GET', `/projects/${projectId}/stories/${id}/activity`, { as: alice, query: { limit: 50 } })).json as Array<{ message: string }>;
    expect(activity.length).to.be.greaterThan(4);
    const shownActivity = async () => {
      const lines = await detail.locator('.activity li').allTextContents();
      return [String(lines.length), String(lines.every((line, index) => line.endsWith(` ${activity[index]?.message}`)))];
    };
    await expectOrder(shownActivity, [String(activity.length), 'true']);
  });

  it('opens the board at every `url` the API gives: a story, a release, an epic, and an activity’s resources', async () => {
    const storyId = await storyOf(app, alice, projectId, { name: 'Linked story', current_state: 'unstarted' });
    const releaseId = await storyOf(app, alice, projectId, { name: 'Linked release', story_type: 'release' });
    const epic = (await app.api('POST', `/projects/${projectId}/epics`, { as: alice, body: { name: 'Linked epic' } })).json as { id: number; url: string };
    const urlOf = async (id: number) => (await story(id, 'url')).url as string;
    const activity = (await app.api('GET', `/projects/${projectId}/activity`, { as: alice, query: { limit: 20 } })).json as Array<{ primary_resources: Array<{ kind: string; id: number; url?: string }> }>;
    const activityUrl = (kind: string, id: number) => activity.flatMap((item) => item.primary_resources).find((resource) => resource.kind === kind && resource.id === id)?.url;
    const places = [
      { url: await urlOf(storyId), opens: `Story #${storyId}`, name: 'Linked story' },
      { url: await urlOf(releaseId), opens: `Story #${releaseId}`, name: 'Linked release' },
      { url: epic.url, opens: 'Epic: Linked epic', name: null },
      { url: activityUrl('story', storyId), opens: `Story #${storyId}`, name: 'Linked story' },
      { url: activityUrl('epic', epic.id), opens: 'Epic: Linked epic', name: null },
    ];
    const page = await chromium.newPage();
    let signedIn = false;
    for (const place of places) {
      expect(place.url, place.opens).to.match(/^http:\/\/storyline\.test\/(story|epic)\/show\/\d+$/);
      // The test's site address is not this server's: the address's path is what a browser opens here.
      const path = new URL(place.url!).pathname;
      if (signedIn) await page.goto(`${baseUrl(app)}${path}`);
      else await signInWithToken(page, app, alice, path);
      signedIn = true;
      const detail = page.getByRole('article', { name: place.opens, exact: true });
      await detail.waitFor();
      if (place.name) expect(await detail.getByLabel('Name').inputValue()).to.equal(place.name);
      await page.getByRole('heading', { name: 'Details', level: 1 }).waitFor();
    }
  });

  it('runs under its strict policy: nothing the board does is refused, and an injected inline script is', async () => {
    const id = await storyOf(app, alice, projectId, { name: 'Policy check', description: '**bold** and [a link](https://example.com)', current_state: 'unstarted' });
    const page = await chromium.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    const violations = await recordPolicyViolations(page);
    await signInWithToken(page, app, alice, `/story/show/${id}`);
    const detail = page.getByRole('article', { name: `Story #${id}` });
    await detail.locator('.markdown strong').waitFor();
    await detail.getByLabel('New comment').fill('A picture');
    await detail.getByLabel('Attach a file').setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: Buffer.from(ONE_PIXEL_PNG, 'base64') });
    await detail.getByRole('button', { name: 'Post comment' }).click();
    await detail.getByRole('img', { name: 'pixel.png' }).waitFor();
    await page.getByRole('button', { name: /^Notifications/ }).click();
    await page.getByRole('dialog', { name: 'Notifications' }).waitFor();
    await page.getByRole('link', { name: 'Alice Able' }).click();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    expect(await violations.read()).to.deep.equal([]);
    expect(consoleErrors).to.deep.equal([]);

    await page.evaluate(`{ const script = document.createElement('script'); script.textContent = 'window.inlineRan = true'; document.body.append(script); }`);
    await expectOrder(() => violations.read(), ['script-src-elem inline']);
    expect(await page.evaluate('window.inlineRan')).to.equal(undefined);
  });

  it('has no serious or critical accessibility violation with a story open', async () => {
    const id = await storyOf(app, alice, projectId, {
      name: 'Full story',
      current_state: 'started',
      estimate: 1,
      labels: ['a11y'],
      owner_ids: [bob.id],
      tasks: [{ description: 'One task' }],
      blockers: [{ description: 'Waiting on design' }],
      comments: [{ text: 'Hello @bob' }],
    });
    const types = (await app.api('GET', `/projects/${projectId}/review_types`, { as: alice })).json as Array<{ id: number }>;
    await app.api('POST', `/projects/${projectId}/stories/${id}/reviews`, { as: alice, body: { review_type_id: types[0]!.id } });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/story/show/${id}`);
    const detail = page.getByRole('article', { name: `Story #${id}` });
    await detail.locator('.review').waitFor();
    await detail.locator('.activity li').first().waitFor();
    expect(await seriousViolations(page)).to.deep.equal([]);
  });

  it('opens an epic at /epic/show/{id} with the stories of its label', async () => {
    const epic = (await app.api('POST', `/projects/${projectId}/epics`, { as: alice, body: { name: 'Payments', description: 'All about **money**' } })).json;
    await storyOf(app, alice, projectId, { name: 'Pay by card', labels: [epic.label.name], current_state: 'unstarted' });
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, `/epic/show/${epic.id}`);
    const detail = page.getByRole('article', { name: 'Epic: Payments' });
    await detail.locator('strong', { hasText: 'money' }).waitFor();
    await detail.locator('.card', { hasText: 'Pay by card' }).waitFor();
  });
});
