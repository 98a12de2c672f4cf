// Thumbnails (issue 31 item 9): an uploaded PNG, JPEG, GIF or WebP gets a thumbnail and a large preview,
// made behind the write by the thumbnails reaction; once made the file is `thumbnailable`, its
// `thumbnail_url` and `big_url` serve them with the download's access rule, and answers cached before
// show them. An image that cannot be read (damaged, or a decompression bomb past the pixel limit) and
// any other file stay `thumbnailable: false`.
import { deflateSync, crc32 } from 'node:zlib';
import { expect } from 'chai';
import sharp from 'sharp';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

function multipart(filename: string, content: Buffer): { headers: Record<string, string>; rawBody: Buffer } {
  const boundary = 'thumbnail-test-boundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return {
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    rawBody: Buffer.concat([Buffer.from(head), content, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A PNG of a few hundred bytes whose header claims 50000 x 50000 pixels (2.5 gigapixels). */
function decompressionBomb(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(50_000, 0);
  header.writeUInt32BE(50_000, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grey
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([signature, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(Buffer.alloc(50_001 * 4))), pngChunk('IEND', Buffer.alloc(0))]);
}

const picture = (format: 'png' | 'jpeg' | 'gif' | 'webp', width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } }).toFormat(format).toBuffer();

describe('API: thumbnails of uploaded images', function () {
  this.timeout(30_000);
  let app: StorylineApp;
  let owner: PersonHandle;
  let stranger: PersonHandle;
  let p: number;
  let storyId: number;

  before(async () => {
    app = await storylineApp();
    owner = await app.person('Olivia Owner');
    stranger = await app.person('Stan');
    p = (await app.api('POST', '/projects', { as: owner, body: { name: 'Pictures', new_account_name: 'P' } })).json.id;
    storyId = (await app.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: 'S' } })).json.id;
  });
  after(() => app.close());

  /** Uploads `bytes` as `filename`, attaches it to a comment, and waits until the thumbnails reaction has seen it. */
  async function uploaded(filename: string, bytes: Buffer): Promise<{ id: number; comment: number }> {
    const upload = await app.api('POST', `/projects/${p}/uploads`, { as: owner, ...multipart(filename, bytes) });
    expect(upload.status, upload.text).to.equal(200);
    const comment = await app.api('POST', `/projects/${p}/stories/${storyId}/comments`, { as: owner, body: { text: filename, file_attachments: [upload.json] } });
    expect(comment.status, comment.text).to.equal(200);
    // an answer cached while the thumbnail may not be made yet must not hide it afterwards
    await app.api('GET', `/projects/${p}/stories/${storyId}/comments?fields=file_attachments`, { as: owner });
    await app.storyline.reactions.waitFor(await app.storyline.eventStore.headPosition(), 'thumbnails');
    return { id: upload.json.id, comment: comment.json.id };
  }

  const fileAsShown = async (id: number) => {
    const comments = (await app.api('GET', `/projects/${p}/stories/${storyId}/comments?fields=file_attachments`, { as: owner })).json;
    return comments.flatMap((c: { file_attachments: Array<{ id: number }> }) => c.file_attachments).find((f: { id: number }) => f.id === id);
  };

  for (const [format, contentType] of [['png', 'image/png'], ['jpeg', 'image/jpeg'], ['gif', 'image/gif'], ['webp', 'image/webp']] as const) {
    it(`makes a thumbnail and a large preview of a ${format.toUpperCase()} and serves them`, async () => {
      const { id } = await uploaded(`shot.${format === 'jpeg' ? 'jpg' : format}`, await picture(format, 1600, 1200));
      const file = await fileAsShown(id);
      expect(file).to.deep.include({
        thumbnailable: true,
        width: 1600,
        height: 1200,
        content_type: contentType,
        thumbnail_url: `http://storyline.test/file_attachments/${id}/thumbnail`,
        big_url: `http://storyline.test/file_attachments/${id}/big`,
      });
      for (const [name, box] of [['thumbnail', 160], ['big', 1024]] as const) {
        const res = await app.server.request('GET', `/file_attachments/${id}/${name}`, { headers: { 'X-TrackerToken': owner.token } });
        expect(res.status, res.text).to.equal(200);
        expect(res.headers['content-type']).to.equal(contentType);
        expect(String(res.headers['content-disposition'])).to.match(/^inline; /);
        const meta = await sharp(await bytesOf(`/file_attachments/${id}/${name}`)).metadata();
        expect([meta.width, meta.height]).to.deep.equal([box, box * 3 / 4]);
      }
    });
  }

  async function bytesOf(path: string): Promise<Buffer> {
    const { request } = await import('node:http');
    return new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port: app.server.port, path, headers: { 'X-TrackerToken': owner.token } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      }).on('error', reject).end();
    });
  }

  it('serves renditions only to readers of the project, and 404 for a file without them', async () => {
    const { id } = await uploaded('small.png', await picture('png', 40, 30));
    expect(await fileAsShown(id)).to.deep.include({ thumbnailable: true, width: 40, height: 30 });
    const thumbnail = await sharp(await bytesOf(`/file_attachments/${id}/thumbnail`)).metadata();
    expect([thumbnail.width, thumbnail.height], 'never enlarged').to.deep.equal([40, 30]);
    // the renditions carry the safety headers a download of the image carries (the one download path),
    // under an API prefix and at the site root
    const download = await app.api('GET', `/file_attachments/${id}/download?inline=true`, { as: owner });
    const isolation = ['x-content-type-options', 'content-security-policy', 'cross-origin-resource-policy'].map((header) => download.headers[header]);
    expect(isolation).to.deep.equal(['nosniff', "sandbox; default-src 'none'", 'same-origin']);
    for (const name of ['thumbnail', 'big']) {
      for (const prefix of ['/services/v5', '']) {
        const rendition = await app.server.request('GET', `${prefix}/file_attachments/${id}/${name}`, { headers: { 'X-TrackerToken': owner.token } });
        expect(rendition.status, `${prefix} ${name}`).to.equal(200);
        for (const header of ['x-content-type-options', 'content-security-policy', 'cross-origin-resource-policy', 'content-disposition']) {
          expect(rendition.headers[header], `${prefix} ${name} ${header}`).to.equal(download.headers[header]);
        }
      }
    }
    expect((await app.api('GET', `/file_attachments/${id}/thumbnail`, { as: stranger })).status).to.be.oneOf([403, 404]);
    expect((await app.server.request('GET', `/file_attachments/${id}/big`)).status).to.equal(401);
    const text = await uploaded('notes.txt', Buffer.from('plain words'));
    expect(await fileAsShown(text.id)).to.deep.include({ thumbnailable: false, thumbnail_url: '#', big_url: '#' });
    const missing = await app.api('GET', `/file_attachments/${text.id}/thumbnail`, { as: owner });
    expect(missing.status).to.equal(404);
    expect(missing.json.code).to.equal('unfound_resource');
  });

  it('leaves an unreadable image and a decompression bomb thumbnailable: false, and goes on', async () => {
    const damaged = await uploaded('broken.png', Buffer.concat([(await picture('png', 300, 200)).subarray(0, 60), Buffer.alloc(100)]));
    expect(await fileAsShown(damaged.id)).to.deep.include({ thumbnailable: false, thumbnail_url: '#' });
    const bomb = await uploaded('bomb.png', decompressionBomb());
    expect(await fileAsShown(bomb.id)).to.deep.include({ thumbnailable: false, thumbnail_url: '#', big_url: '#' });
    expect((await app.api('GET', `/file_attachments/${bomb.id}/big`, { as: owner })).status).to.equal(404);
    const after = await uploaded('after.webp', await picture('webp', 320, 240));
    expect(await fileAsShown(after.id)).to.deep.include({ thumbnailable: true });
  });
});
