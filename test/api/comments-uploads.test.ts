// Comments on stories and epics, uploads and downloads, blockers, and a story's nested comments and
// blockers, over HTTP on the real composition root.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const versionOf = (res: { headers: Record<string, unknown> }) => Number(res.headers['x-tracker-project-version']);

function multipart(filename: string, content: string | Buffer, extra: Record<string, string> = {}): { headers: Record<string, string>; rawBody: Buffer } {
  const boundary = 'storyline-test-boundary';
  const parts = Object.entries(extra).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  const file = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/x-anything\r\n\r\n`;
  const rawBody = Buffer.concat([Buffer.from(`${parts.join('')}${file}`), Buffer.from(content), Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, rawBody };
}

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** The headers every download carries, whatever the file. */
function expectIsolated(res: { status: number; text: string; headers: Record<string, unknown> }): void {
  expect(res.status, res.text).to.equal(200);
  expect(res.headers['x-content-type-options']).to.equal('nosniff');
  expect(res.headers['content-security-policy']).to.equal("sandbox; default-src 'none'");
  expect(res.headers['cross-origin-resource-policy']).to.equal('same-origin');
}

describe('API: comments, uploads and blockers', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let bob: PersonHandle;
  let vera: PersonHandle;
  let stranger: PersonHandle;
  let p: number;

  before(async () => {
    app = await storylineApp({ env: { STORYLINE_MAX_UPLOAD_BYTES: '2048' } });
    owner = await app.person('Olivia Owner');
    bob = await app.person('Bob');
    vera = await app.person('Vera');
    stranger = await app.person('Stan');
    p = (await app.api('POST', '/projects', { as: owner, body: { name: 'Talk', new_account_name: 'T' } })).json.id;
    for (const [person, role] of [[bob, 'member'], [vera, 'viewer']] as const) {
      await app.api('POST', `/projects/${p}/memberships`, { as: owner, body: { person_id: person.id, role } });
    }
  });
  after(() => app.close());

  const story = async (body: Record<string, unknown> = {}) => {
    const res = await app.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: 'S', ...body } });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  };

  it('uploads a file, attaches it to a comment, and serves the exact bytes to members only', async () => {
    const s = await story();
    const upload = await app.api('POST', `/projects/${p}/uploads`, { as: bob, ...multipart('résumé final.txt', 'hello bytes') });
    expect(upload.status, upload.text).to.equal(200);
    const file = upload.json;
    expect(Object.keys(file).sort()).to.deep.equal(
      ['big_url', 'content_type', 'created_at', 'download_url', 'filename', 'id', 'kind', 'size', 'thumbnail_url', 'thumbnailable', 'uploaded', 'uploader_id'].sort(),
    );
    // content_type from the extension, not from the part's Content-Type (spec)
    expect(file).to.include({ kind: 'file_attachment', filename: 'résumé final.txt', size: 11, uploader_id: bob.id, thumbnailable: false, uploaded: true, thumbnail_url: '#', content_type: 'text/plain' });
    expect(file.download_url).to.equal(`http://storyline.test/file_attachments/${file.id}/download`);

    const comment = await app.api('POST', `/projects/${p}/stories/${s.id}/comments`, { as: bob, body: { text: 'see file', file_attachments: [file] } });
    expect(comment.status, comment.text).to.equal(200);
    expect(Object.keys(comment.json).sort()).to.deep.equal(['created_at', 'id', 'kind', 'person_id', 'story_id', 'text', 'updated_at'].sort());
    const nested = await app.api('GET', `/projects/${p}/stories/${s.id}/comments/${comment.json.id}?fields=text,file_attachments(filename,size),file_attachment_ids`, { as: vera });
    expect(nested.json).to.deep.equal({ id: comment.json.id, text: 'see file', file_attachments: [{ id: file.id, filename: 'résumé final.txt', size: 11 }], file_attachment_ids: [file.id] });
    const nestedDefaults = await app.api('GET', `/projects/${p}/stories/${s.id}?fields=comments(file_attachments)`, { as: vera });
    expect(nestedDefaults.json.comments[0].file_attachments[0]).to.deep.equal(file);

    const root = await app.server.request('GET', `/file_attachments/${file.id}/download`, { headers: { 'X-TrackerToken': vera.token } });
    expect(root.status).to.equal(200);
    expect(root.text).to.equal('hello bytes');
    expect(root.headers['content-type']).to.equal('text/plain');
    expect(root.headers['content-disposition']).to.equal(`attachment; filename="r_sum_ final.txt"; filename*=UTF-8''${encodeURIComponent('résumé final.txt')}`);
    const inline = await app.api('GET', `/file_attachments/${file.id}/download?inline=true`, { as: vera });
    expect(inline.status).to.equal(200);
    expect(String(inline.headers['content-disposition'])).to.match(/^inline; /);
    expect((await app.api('GET', `/file_attachments/${file.id}/download`, { as: stranger })).status).to.be.oneOf([403, 404]);
    expect((await app.server.request('GET', `/file_attachments/${file.id}/download`)).status).to.equal(401);
    expect((await app.api('GET', `/file_attachments/${file.id}/download?inline=maybe`, { as: vera })).status).to.equal(400);
  });

  it('serves inline only what cannot run script, every download isolated, under every prefix', async () => {
    const upload = async (filename: string, content: string | Buffer) => {
      const res = await app.api('POST', `/projects/${p}/uploads`, { as: bob, ...multipart(filename, content) });
      expect(res.status, res.text).to.equal(200);
      return res.json.id as number;
    };
    const html = await upload('page.html', '<script>fetch("/services/v5/me")</script>');
    const svg = await upload('logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>');
    const xhtml = await upload('page.xhtml', '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>');
    const png = await upload('dot.png', PNG);
    const markdown = await upload('notes.md', '# notes <b>bold</b>');
    const pdf = await upload('paper.pdf', '%PDF-1.4 not really');
    const headers = { 'X-TrackerToken': vera.token };
    for (const prefix of ['', '/services/v5', '/v5', '/services/edge', '/edge', '/services/next', '/next']) {
      const get = (id: number) => app.server.request('GET', `${prefix}/file_attachments/${id}/download?inline=true`, { headers });
      for (const [id, type] of [[html, 'text/html'], [svg, 'image/svg+xml'], [xhtml, 'application/xhtml+xml']] as const) {
        const res = await get(id);
        expectIsolated(res);
        expect(res.headers['content-type'], `${prefix} ${type}`).to.equal(type);
        expect(String(res.headers['content-disposition']), `${prefix} ${type}`).to.match(/^attachment; /);
      }
      const image = await get(png);
      expectIsolated(image);
      expect([image.headers['content-type'], String(image.headers['content-disposition'])]).to.deep.equal(['image/png', `inline; filename="dot.png"; filename*=UTF-8''dot.png`]);
      const text = await get(markdown);
      expectIsolated(text);
      expect([text.headers['content-type'], text.text]).to.deep.equal(['text/plain; charset=utf-8', '# notes <b>bold</b>']);
      expect(String(text.headers['content-disposition'])).to.match(/^inline; /);
      const document = await get(pdf);
      expectIsolated(document);
      expect([document.headers['content-type'], String(document.headers['content-disposition'])]).to.deep.equal(['application/pdf', `inline; filename="paper.pdf"; filename*=UTF-8''paper.pdf`]);
    }
    // Without `inline=true` every file is an attachment; text keeps its stored type there.
    const saved = await app.api('GET', `/file_attachments/${markdown}/download`, { as: vera });
    expectIsolated(saved);
    expect([saved.headers['content-type'], String(saved.headers['content-disposition'])]).to.deep.equal(['text/markdown', `attachment; filename="notes.md"; filename*=UTF-8''notes.md`]);
    // The stored content_type is the one the file attachment shows, unchanged.
    const stored = await app.api('POST', `/projects/${p}/uploads?fields=content_type`, { as: bob, ...multipart('again.html', '<p>') });
    expect(stored.json).to.deep.equal({ id: stored.json.id, content_type: 'text/html' });
  });

  it('neutralises bidirectional overrides and control characters in the name a download is saved as', async () => {
    const name = 'invoice\u202Egpj.exe \u2066x\u2069\u200E\u200F\u061C\u202A\u202B\u202C\u202D\u2067\u2068 \u0085é.txt';
    const id = (await app.api('POST', `/projects/${p}/uploads`, { as: bob, ...multipart(name, 'bytes') })).json.id;
    const res = await app.api('GET', `/file_attachments/${id}/download?inline=true`, { as: vera });
    expectIsolated(res);
    const shown = 'invoice_gpj.exe _x__________ _é.txt';
    expect(res.headers['content-disposition']).to.equal(`inline; filename="${shown.replace('é', '_')}"; filename*=UTF-8''${encodeURIComponent(shown)}`);
  });

  it("isolates a public project's files downloaded without a token", async () => {
    const open = (await app.api('POST', '/projects', { as: owner, body: { name: 'Open files', public: true, new_account_name: 'O' } })).json.id;
    const id = (await app.api('POST', `/projects/${open}/uploads`, { as: owner, ...multipart('page.html', '<script>alert(1)</script>') })).json.id;
    for (const path of [`/file_attachments/${id}/download?inline=true`, `/services/v5/file_attachments/${id}/download?inline=true`]) {
      const res = await app.server.request('GET', path);
      expectIsolated(res);
      expect(String(res.headers['content-disposition'])).to.match(/^attachment; /);
      expect(res.text).to.equal('<script>alert(1)</script>');
    }
  });

  it('refuses bad uploads with error hashes and records nothing', async () => {
    const before = versionOf(await app.api('GET', `/projects/${p}`, { as: owner }));
    const tooBig = await app.api('POST', `/projects/${p}/uploads`, { as: bob, ...multipart('big.bin', 'x'.repeat(3000)) });
    expect(tooBig.status).to.equal(413);
    expect(tooBig.json.code).to.equal('request_entity_too_large');
    const hugeBody = await app.api('POST', `/projects/${p}/uploads`, { as: bob, ...multipart('big.bin', 'x'.repeat(200_000)) });
    expect(hugeBody.status).to.equal(413);
    const extra = await app.api('POST', `/projects/${p}/uploads`, { as: bob, ...multipart('a.txt', 'a', { comment_id: '3' }) });
    expect(extra.status).to.equal(400);
    expect(extra.json.code).to.equal('invalid_parameter');
    const json = await app.api('POST', `/projects/${p}/uploads`, { as: bob, body: { file: 'x' } });
    expect(json.status).to.equal(415);
    expect((await app.api('POST', `/projects/${p}/uploads`, { as: vera, ...multipart('a.txt', 'a') })).status).to.equal(403);
    expect(versionOf(await app.api('GET', `/projects/${p}`, { as: owner }))).to.equal(before);
  });

  it('creates, edits and deletes comments on stories and epics; commenting and mentions make followers', async () => {
    const s = await story();
    expect((await app.api('GET', `/projects/${p}/stories/${s.id}?fields=follower_ids,comments,blockers,tasks,pull_requests,branches,reviews`, { as: owner })).json)
      .to.deep.equal({ id: s.id, follower_ids: [], comments: [], blockers: [], tasks: [], pull_requests: [], branches: [], reviews: [] });
    const created = await app.api('POST', `/projects/${p}/stories/${s.id}/comments`, { as: bob, body: { text: 'ping @vera and @olivia.owner' } });
    expect(created.status, created.text).to.equal(200);
    const followers = (await app.api('GET', `/projects/${p}/stories/${s.id}?fields=follower_ids`, { as: owner })).json.follower_ids;
    expect(followers).to.include(bob.id).and.not.include(vera.id); // viewers are not made followers
    const edited = await app.api('PUT', `/projects/${p}/stories/${s.id}/comments/${created.json.id}`, { as: bob, body: { text: 'edited' } });
    expect(edited.status, edited.text).to.equal(200);
    expect(edited.json.text).to.equal('edited');
    const list = await app.api('GET', `/projects/${p}/stories/${s.id}/comments`, { as: vera });
    expect(list.json.map((c: { text: string }) => c.text)).to.deep.equal(['edited']);

    const epic = (await app.api('POST', `/projects/${p}/epics`, { as: owner, body: { name: 'Chat' } })).json;
    const onEpic = await app.api('POST', `/projects/${p}/epics/${epic.id}/comments`, { as: bob, body: { text: 'epic talk', ext_attachments: [{ title: 'Doc', alternate_link: 'https://docs.example/1' }] } });
    expect(onEpic.status, onEpic.text).to.equal(200);
    expect(onEpic.json).to.include({ epic_id: epic.id, text: 'epic talk' });
    expect(onEpic.json).not.to.have.property('story_id');
    const ext = (await app.api('GET', `/projects/${p}/epics/${epic.id}/comments/${onEpic.json.id}?fields=ext_attachments`, { as: bob })).json.ext_attachments;
    expect(ext).to.have.length(1);
    const dropped = await app.api('DELETE', `/projects/${p}/epics/${epic.id}/comments/${onEpic.json.id}/ext_attachments/${ext[0].id}`, { as: bob });
    expect(dropped.status, dropped.text).to.equal(204);
    expect((await app.api('GET', `/projects/${p}/epics/${epic.id}?fields=comment_ids,follower_ids`, { as: bob })).json).to.deep.equal({ id: epic.id, comment_ids: [onEpic.json.id], follower_ids: [bob.id] });

    const gone = await app.api('DELETE', `/projects/${p}/stories/${s.id}/comments/${created.json.id}`, { as: bob });
    expect(gone.status).to.equal(204);
    expect((await app.api('GET', `/projects/${p}/stories/${s.id}/comments/${created.json.id}`, { as: bob })).status).to.equal(404);
  });

  it('refuses bad comment input and non-writers without moving the version', async () => {
    const s = await story();
    const before = versionOf(await app.api('GET', `/projects/${p}`, { as: owner }));
    const bad: [Record<string, unknown>, string][] = [
      [{ text: 'x'.repeat(20_001) }, 'text'],
      [{ text: 'x', colour: 'red' }, 'colour'],
      [{ text: 'x', file_attachments: [{ filename: 'no id' }] }, 'file_attachments'],
      [{ text: 'x', file_attachment_ids: [987654] }, ''],
    ];
    for (const [body, field] of bad) {
      const res = await app.api('POST', `/projects/${p}/stories/${s.id}/comments`, { as: bob, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.json.code).to.equal('invalid_parameter');
      if (field) expect(res.json.validation_errors.map((e: { field: string }) => e.field)).to.include(field);
    }
    expect((await app.api('PUT', `/projects/${p}/stories/${s.id}/comments/1`, { as: bob, body: {} })).status).to.be.oneOf([400, 404]);
    expect((await app.api('POST', `/projects/${p}/stories/${s.id}/comments`, { as: vera, body: { text: 'x' } })).status).to.equal(403);
    expect((await app.api('GET', `/projects/${p}/stories/${s.id}/comments`, { as: stranger })).status).to.be.oneOf([403, 404]);
    expect((await app.api('POST', `/projects/${p}/stories/424242/comments`, { as: bob, body: { text: 'x' } })).status).to.equal(404);
    expect(versionOf(await app.api('GET', `/projects/${p}`, { as: owner }))).to.equal(before);
  });

  it('serves blockers, with the blocking story counting the blocked one', async () => {
    const blocking = await story({ name: 'first' });
    const blocked = await story({ name: 'second' });
    const created = await app.api('POST', `/projects/${p}/stories/${blocked.id}/blockers`, { as: bob, body: { description: `waits for #${blocking.id}` } });
    expect(created.status, created.text).to.equal(200);
    expect(created.json).to.include({ kind: 'blocker', story_id: blocked.id, person_id: bob.id, resolved: false });
    expect((await app.api('GET', `/projects/${p}/stories/${blocking.id}?fields=blocked_story_ids`, { as: bob })).json.blocked_story_ids).to.deep.equal([blocked.id]);
    const resolved = await app.api('PUT', `/projects/${p}/stories/${blocked.id}/blockers/${created.json.id}`, { as: bob, body: { resolved: true } });
    expect(resolved.json.resolved).to.equal(true);
    expect((await app.api('GET', `/projects/${p}/stories/${blocking.id}?fields=blocked_story_ids`, { as: bob })).json.blocked_story_ids).to.deep.equal([]);
    expect((await app.api('GET', `/projects/${p}/stories/${blocked.id}/blockers`, { as: vera })).json).to.have.length(1);
    expect((await app.api('POST', `/projects/${p}/stories/${blocked.id}/blockers`, { as: bob, body: {} })).status).to.equal(400);
    expect((await app.api('POST', `/projects/${p}/stories/${blocked.id}/blockers`, { as: vera, body: { description: 'x' } })).status).to.equal(403);
    expect((await app.api('DELETE', `/projects/${p}/stories/${blocked.id}/blockers/${created.json.id}`, { as: bob })).status).to.equal(204);
    expect((await app.api('GET', `/projects/${p}/stories/${blocked.id}?fields=blockers`, { as: bob })).json.blockers).to.deep.equal([]);
  });

  it('creates nested comments and blockers with the story, refuses pull_requests / branches, and deletes comments and files with the story', async () => {
    const upload = (await app.api('POST', `/projects/${p}/uploads`, { as: owner, ...multipart('n.txt', 'nested') })).json;
    const s = await story({ comments: [{ text: 'first', file_attachments: [upload] }], blockers: [{ description: 'legal' }] });
    const read = await app.api('GET', `/projects/${p}/stories/${s.id}?fields=comments(text,file_attachments),blockers(description),follower_ids`, { as: owner });
    expect(read.json.comments.map((c: { text: string }) => c.text)).to.deep.equal(['first']);
    expect(read.json.comments[0].file_attachments.map((f: { id: number }) => f.id)).to.deep.equal([upload.id]);
    expect(read.json.blockers.map((b: { description: string }) => b.description)).to.deep.equal(['legal']);
    expect(read.json.follower_ids).to.deep.equal([owner.id]); // the commenter, not the requester
    const before = versionOf(await app.api('GET', `/projects/${p}`, { as: owner }));
    for (const key of ['pull_requests', 'branches']) {
      const res = await app.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: 'x', [key]: [] } });
      expect(res.status).to.equal(400);
      expect(res.json.validation_errors[0].field).to.equal(key);
    }
    expect(versionOf(await app.api('GET', `/projects/${p}`, { as: owner }))).to.equal(before);
    expect((await app.api('DELETE', `/projects/${p}/stories/${s.id}`, { as: owner })).status).to.equal(204);
    expect((await app.api('GET', `/projects/${p}/stories/${s.id}/comments`, { as: owner })).status).to.equal(404);
    expect((await app.api('GET', `/file_attachments/${upload.id}/download`, { as: owner })).status).to.equal(404);
  });

  it('keeps comments, files and their bytes across a restart on the same data directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-comments-'));
    try {
      const first = await storylineApp({ dataDir: dir });
      const olive = await first.person('Olive');
      const project = (await first.api('POST', '/projects', { as: olive, body: { name: 'Kept', new_account_name: 'K' } })).json.id;
      const file = (await first.api('POST', `/projects/${project}/uploads`, { as: olive, ...multipart('kept.txt', 'kept bytes') })).json;
      const s = (await first.api('POST', `/projects/${project}/stories`, { as: olive, body: { name: 'S', comments: [{ text: 'kept', file_attachments: [file] }] } })).json;
      await first.close();
      const second = await storylineApp({ dataDir: dir });
      try {
        const comments = await second.api('GET', `/projects/${project}/stories/${s.id}/comments?fields=text,file_attachment_ids`, { as: olive });
        expect(comments.json.map((c: { text: string }) => c.text)).to.deep.equal(['kept']);
        const bytes = await second.api('GET', `/file_attachments/${file.id}/download`, { as: olive });
        expect(bytes.text).to.equal('kept bytes');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
