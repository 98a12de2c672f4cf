// People joining and keeping their account, in real headless Chromium: an owner invites a new email from
// the Members panel and gets a one-time link; the invitee opens it, sets name, username and password and
// lands on the project; the profile page shows and renews the API token and changes the profile and the
// password, through the invitation and profile endpoints (src/api/resources/invitations.ts, me.ts).
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from '../api/support/storyline-app.js';
import { useChromium } from './support/chromium.js';
import { baseUrl, basicAuthorization, projectOf, seriousViolations, signInWithToken } from './support/board-page.js';

describe('browser: joining and the profile', function () {
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

  it('invites a new email from the Members panel; the invitee sets a password and lands on the project, once', async () => {
    const id = await projectOf(app, alice, 'Welcoming');
    const owner = await chromium.newPage();
    await signInWithToken(owner, app, alice, `/n/projects/${id}`);
    await owner.getByRole('button', { name: 'Members', exact: true }).click();
    const members = owner.locator('.panel-members');
    await members.getByLabel('Email').fill('nora@example.com');
    await members.getByLabel('Name (for someone new)').fill('Nora Newcomer');
    await members.getByRole('button', { name: 'Invite' }).click();
    const link = members.getByLabel('Invitation link for nora@example.com');
    await link.waitFor();
    const url = new URL(await link.inputValue());
    expect(url.pathname).to.match(/^\/invitations\/[^/]+$/);
    expect(await seriousViolations(owner)).to.deep.equal([]);

    const invitee = await chromium.newPage();
    await invitee.goto(`${baseUrl(app)}${url.pathname}`);
    await invitee.getByRole('heading', { name: 'Join Welcoming on Storyline' }).waitFor();
    await invitee.getByText('Alice Able invited nora@example.com').waitFor();
    expect(await seriousViolations(invitee)).to.deep.equal([]);
    await invitee.getByLabel('Your name').fill('Nora N. Newcomer');
    await invitee.getByLabel('Username').fill('nora');
    await invitee.getByLabel('Password').fill('correct horse battery staple');
    await invitee.getByRole('button', { name: 'Join the project' }).click();
    await invitee.getByRole('heading', { name: 'Welcoming', exact: true, level: 1 }).waitFor();
    expect(new URL(invitee.url()).pathname).to.equal(`/n/projects/${id}`);
    expect(await invitee.getByRole('link', { name: 'Nora N. Newcomer' }).count()).to.equal(1);

    // The password works for a sign-in, and the link does not work twice.
    const me = await app.server.request('GET', '/services/v5/me', { headers: { Authorization: basicAuthorization('nora', 'correct horse battery staple') } });
    expect(me.status).to.equal(200);
    expect(me.json).to.include({ name: 'Nora N. Newcomer', username: 'nora', email: 'nora@example.com' });
    const again = await chromium.newPage();
    await again.goto(`${baseUrl(app)}${url.pathname}`);
    await again.getByRole('alert').filter({ hasText: 'unknown, already used or expired' }).waitFor();
  });

  it('shows and renews the API token, saves name, initials and time zone, and changes the password', async () => {
    const person = await app.person('Pia Profile');
    const page = await chromium.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await signInWithToken(page, app, person);
    await page.getByRole('link', { name: 'Pia Profile' }).click();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/profile');
    expect(await seriousViolations(page)).to.deep.equal([]);

    const token = page.getByLabel('Your API token');
    expect(await token.textContent()).to.not.contain(person.token);
    await page.getByRole('button', { name: 'Show token' }).click();
    expect(await token.textContent()).to.equal(person.token);
    await page.getByRole('button', { name: 'Make a new token' }).click();
    await page.getByRole('status').filter({ hasText: 'A new API token was made' }).waitFor();
    const renewed = (await token.textContent()) ?? '';
    expect(renewed).to.match(/^[0-9a-f]{32}$/).and.not.equal(person.token);
    expect((await app.api('GET', '/me', { as: person })).status).to.be.oneOf([401, 403]);
    expect(await page.evaluate('sessionStorage.getItem("storyline.token")')).to.equal(renewed);

    await page.getByLabel('Name', { exact: true }).fill('Pia P. Profile');
    await page.getByLabel('Initials').fill('PPP');
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('status').filter({ hasText: 'Your profile was saved' }).waitFor();
    await page.getByRole('link', { name: 'Pia P. Profile' }).waitFor();
    const me = (await app.api('GET', '/me', { as: { ...person, token: renewed } })).json;
    expect({ name: me.name, initials: me.initials, zone: me.time_zone.olson_name }).to.deep.equal({ name: 'Pia P. Profile', initials: 'PPP', zone: 'Europe/Berlin' });

    await page.getByLabel('Current password').fill('not it');
    await page.getByLabel('New password').fill('a much longer new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'The current password is not right' }).waitFor();
    await page.getByLabel('Current password').fill(person.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password was changed' }).waitFor();
    const signIn = (password: string) => app.server.request('GET', '/services/v5/me', { headers: { Authorization: basicAuthorization(person.email, password) } });
    expect((await signIn('a much longer new password')).status).to.equal(200);
    expect((await signIn(person.password)).status).to.be.oneOf([401, 403]);
  });

  it('opens the profile page a refused token’s hint points at, after signing in', async () => {
    const refused = await app.api('GET', '/me', { headers: { 'X-TrackerToken': '0123456789abcdef0123456789abcdef' } });
    const hint = String(refused.json.possible_fix ?? '');
    const address = hint.match(/https?:\/\/\S+?\/profile\b/)?.[0];
    expect(address, hint).to.be.a('string');
    const page = await chromium.newPage();
    await signInWithToken(page, app, alice, new URL(address!).pathname);
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
  });
});
