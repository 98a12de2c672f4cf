// The API reference at /docs in a real browser (Debian's chromium): Swagger UI renders the server's own
// OpenAPI document under the page's strict policy (a violation would show as a console error), lists
// every tag of the document, and a "try it" call of GET /me with a pasted token answers 200.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { storylineApp, type PersonHandle, type StorylineApp } from '../api/support/storyline-app.js';
import { useChromium } from './support/chromium.js';

describe('browser: the API reference (/docs)', function () {
  // Rendering the whole reference takes a few seconds on a quiet machine, much longer on a busy one.
  this.timeout(180_000);
  const chromium = useChromium();
  let app: StorylineApp;
  let person: PersonHandle;

  before(async () => {
    app = await storylineApp();
    person = await app.person('Reader');
  });
  after(async () => {
    await app?.close();
  });

  /** The page, rendered, with every console error and refused request it met. */
  async function openReference(): Promise<{ page: Page; errors: string[] }> {
    const page = await chromium.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(`http://127.0.0.1:${app.server.port}/docs`);
    expect(response?.status()).to.equal(200);
    await page.waitForSelector('.opblock-tag', { timeout: 150_000 });
    return { page, errors };
  }

  it('renders every tag of the document, with no error under its security policy', async () => {
    const { page, errors } = await openReference();
    const document = (await app.api('GET', '/openapi.json')).json;
    // Swagger UI renders the tags over several frames: wait (bounded) for as many as the document has.
    for (let polls = 0; polls < 600 && (await page.locator('.opblock-tag').count()) < document.tags.length; polls++) await page.waitForTimeout(250);
    expect(errors).to.deep.equal([]);
    const shown = await page.locator('.opblock-tag').evaluateAll((tags) => tags.map((tag) => tag.getAttribute('data-tag')));
    expect(shown).to.deep.equal(document.tags.map((tag: { name: string }) => tag.name));
    expect(await page.locator('.opblock').count()).to.be.greaterThan(90);
    expect(errors).to.deep.equal([]);
  });

  it('calls GET /me with the token the reader pastes, and shows the 200 answer', async () => {
    const { page, errors } = await openReference();
    await page.click('.auth-wrapper button.authorize');
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').first().fill(person.token);
    await dialog.locator('button.authorize').first().click();
    await dialog.locator('button.btn-done').first().click();
    const operation = page.locator('#operations-Me-get_me');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    expect((await status.innerText()).trim()).to.equal('200');
    expect(await operation.locator('.live-responses-table tbody .response-col_description').first().innerText()).to.contain(person.email);
    expect(errors).to.deep.equal([]);
  });
});
