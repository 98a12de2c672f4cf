// The API reference at /docs in a real browser (Debian's chromium): Swagger UI renders the server's own
// OpenAPI document under the page's strict policy (a violation would show as a console error), shows
// every tag and operation of the document as the reader scrolls (from 150 of them on, it renders only
// those near the viewport), and a "try it" call of GET /me with a pasted token answers 200.
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

  it('renders every tag and operation of the document as the reader scrolls, with no error under its security policy', async () => {
    const { page, errors } = await openReference();
    const reference = (await app.api('GET', '/openapi.json')).json;
    const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);
    const operations = Object.values(reference.paths as Record<string, Record<string, unknown>>).reduce((count, item) => count + Object.keys(item).filter((key) => methods.has(key)).length, 0);
    // From 150 tags and operations on, Swagger UI renders only those near the viewport: scroll (bounded)
    // to the end, gathering what each screen shows, in order of first appearance.
    const tags: string[] = [];
    const operationIds = new Set<string>();
    for (let screens = 0; screens < 400; screens++) {
      const seen = {
        tags: await page.locator('.opblock-tag').evaluateAll((shown) => shown.map((tag) => tag.getAttribute('data-tag') ?? '')),
        operations: await page.locator('.opblock').evaluateAll((shown) => shown.map((operation) => operation.id)),
        atEnd: (await page.evaluate('window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2')) === true,
      };
      for (const tag of seen.tags) if (!tags.includes(tag)) tags.push(tag);
      for (const id of seen.operations) operationIds.add(id);
      if (seen.atEnd && tags.length >= reference.tags.length) break;
      await page.mouse.wheel(0, 600);
      await page.waitForTimeout(50);
    }
    expect(tags).to.deep.equal(reference.tags.map((tag: { name: string }) => tag.name));
    expect(operationIds.size).to.equal(operations);
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
