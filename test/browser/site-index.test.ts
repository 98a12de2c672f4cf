// The site root in a real browser: the harness every browser suite uses, proven on the page that exists.
import { expect } from 'chai';
import { storylineApp, type StorylineApp } from '../api/support/storyline-app.js';
import { useChromium } from './support/chromium.js';

describe('browser: the site root', function () {
  this.timeout(60_000);
  const chromium = useChromium();
  let app: StorylineApp;

  before(async () => {
    app = await storylineApp();
  });
  after(async () => {
    await app?.close();
  });

  it('renders the HTML index pointing at the API prefix', async () => {
    const page = await chromium.newPage();
    const response = await page.goto(`http://127.0.0.1:${app.server.port}/`);
    expect(response?.status()).to.equal(200);
    expect(response?.headers()['content-type']).to.match(/^text\/html/);
    expect(await page.textContent('body')).to.contain('/services/v5');
  });
});
