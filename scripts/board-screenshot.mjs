#!/usr/bin/env node
// `node scripts/board-screenshot.mjs [FILE]` (after `npm run build`): the README's picture of the board
// (docs/board.png by default). Seeds a small project into an in-memory server with the browser tests'
// harness, opens a story on its board in Debian's chromium and saves a screenshot.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? `${root}docs/board.png`;
const { storylineApp } = await import(`${root}dist/test/api/support/storyline-app.js`);
const { launchChromium, chromiumExecutable } = await import(`${root}dist/test/browser/support/chromium.js`);
const executable = chromiumExecutable();
if (!executable) {
  console.error('board-screenshot: no chromium executable (apt-get install chromium, or set STORYLINE_CHROMIUM)');
  process.exit(1);
}
const app = await storylineApp({ start: Date.UTC(2025, 2, 12, 10) });
const ada = await app.person('Ada Lovelace');
const grace = await app.person('Grace Hopper');
const linus = await app.person('Linus Torvalds');
const api = async (method, path, body, as = ada) => {
  const res = await app.api(method, path, { as, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.text}`);
  return res.json;
};
const project = await api('POST', '/projects', { name: 'Mobile banking app', new_account_name: 'Acme Bank', initial_velocity: 8, start_date: '2025-02-24', week_start_day: 'Monday', point_scale: '0,1,2,3,5,8' });
const id = project.id;
for (const who of [grace, linus]) await api('POST', `/projects/${id}/memberships`, { person_id: who.id, role: 'member' });
const s = (body) => api('POST', `/projects/${id}/stories`, body);
// two done iterations of 8 points (the velocity), the current one, the Backlog and the Icebox
await s({ name: 'Sign in with a fingerprint', current_state: 'accepted', estimate: 3, accepted_at: '2025-02-26T12:00:00Z', labels: ['auth'] });
await s({ name: 'Remember this device', current_state: 'accepted', estimate: 5, accepted_at: '2025-02-27T12:00:00Z', labels: ['auth'] });
await s({ name: 'Account overview screen', current_state: 'accepted', estimate: 5, accepted_at: '2025-03-05T12:00:00Z', labels: ['accounts'] });
await s({ name: 'Recent transactions list', current_state: 'accepted', estimate: 3, accepted_at: '2025-03-06T12:00:00Z', labels: ['accounts'] });
await s({ name: 'Show pending card payments', current_state: 'delivered', estimate: 3, labels: ['accounts'], owner_ids: [grace.id] });
const transfer = await s({ name: 'Transfer money between my accounts', current_state: 'started', estimate: 5, labels: ['payments'], owner_ids: [ada.id, linus.id],
  description: 'As a customer I want to **move money between my own accounts** so that I can cover a payment.\n\n- both accounts must be mine\n- the amount cannot exceed the balance\n- see the [design](https://example.com/design)',
  tasks: [{ description: 'Amount field with validation', complete: true }, { description: 'Confirmation screen' }, { description: 'Call the ledger API' }],
  comments: [{ text: 'The ledger API answers in under 200 ms in staging.' }] });
await s({ name: 'Crash when the session expires on the transfer screen', story_type: 'bug', current_state: 'finished', labels: ['payments'], owner_ids: [linus.id] });
await s({ name: 'Freeze a lost card', current_state: 'unstarted', estimate: 2, labels: ['cards'], blockers: [{ description: 'Waiting for the card processor sandbox' }] });
await s({ name: 'Release 1.2 to the app stores', story_type: 'release', current_state: 'unstarted', deadline: '2025-03-28T00:00:00Z' });
for (const [name, estimate, label, type] of [['Pay a bill by scanning its QR code', 5, 'payments'], ['Spending by category chart', 3, 'insights'], ['Update the privacy screen copy', undefined, 'legal', 'chore'], ['Dark mode', 3, 'ui'], ['Export statements as PDF', 5, 'accounts'], ['Push notification for large payments', 2, 'notifications'], ['Rounding error in foreign currency totals', undefined, 'accounts', 'bug'], ['Set a monthly budget', 5, 'insights']]) {
  await s({ name, estimate, labels: [label], current_state: 'unstarted', story_type: type ?? 'feature' });
}
for (const [name, type] of [['Split a bill with friends', 'feature'], ['Apple Watch complication', 'feature'], ['Investigate slow start-up on older phones', 'chore'], ['Cash-back offers', 'feature'], ['Savings goals with photos', 'feature']]) await s({ name, story_type: type });
const browser = await launchChromium(executable);
const context = await browser.newContext({ viewport: { width: 1500, height: 860 }, deviceScaleFactor: 1 });
await context.addInitScript(`sessionStorage.setItem('storyline.token', ${JSON.stringify(ada.token)})`);
const page = await context.newPage();
await page.goto(`http://127.0.0.1:${app.server.port}/story/show/${transfer.id}`);
await page.locator('.detail-panel').waitFor();
await page.locator('.activity li').first().waitFor();
await page.locator('.live-status:not(.connecting)').waitFor();
await page.screenshot({ path: out });
await browser.close();
await app.close();
console.log(`board-screenshot: ${out}`);
