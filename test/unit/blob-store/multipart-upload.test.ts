// The upload body reader over real multipart bytes and the file blob store: the stored file, and the
// failures (not multipart, malformed, no file, extra parts, over the limit) with nothing left behind.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { openFileBlobStore } from '../../../src/infra/blob-store/file-blob-store.js';
import { contentTypeOf, receiveUpload } from '../../../src/infra/blob-store/multipart-upload.js';
import { DomainError } from '../../../src/domain/errors.js';
import type { BlobStore } from '../../../src/ports/blob-store.js';
import { readAll, seededBytes } from '../../contract/blob-store.contract.js';

const BOUNDARY = '----storyline-test-boundary';

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  content: Buffer | string;
}

/** A multipart/form-data body as a browser or curl sends it. */
function multipartBody(parts: Part[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const headers = [`Content-Disposition: ${disposition}`, ...(part.contentType ? [`Content-Type: ${part.contentType}`] : [])];
    chunks.push(Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function request(body: Buffer, contentType = `multipart/form-data; boundary=${BOUNDARY}`) {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += 4096) chunks.push(body.subarray(offset, offset + 4096));
  return { headers: { 'content-type': contentType, 'content-length': String(body.length) }, body: Readable.from(chunks) };
}

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error, 'the upload should have been refused').to.be.instanceOf(DomainError);
  return error as DomainError;
}

describe('receiving a multipart upload into the blob store', () => {
  let root: string;
  let blobs: BlobStore;
  const limits = { maxFileBytes: 64 * 1024 };

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'storyline-upload-'));
    blobs = await openFileBlobStore(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  async function storedKeys(): Promise<string[]> {
    const keys: string[] = [];
    for await (const listing of blobs.list()) keys.push(listing.key);
    expect(readdirSync(join(root, 'tmp')), 'temp files').to.deep.equal([]);
    return keys;
  }

  it('stores the file part and reports its name, size, hash and the content type of its extension', async () => {
    const bytes = seededBytes(11, 40_000);
    const body = multipartBody([{ name: 'file', filename: 'diagram.PNG', contentType: 'application/x-anything', content: bytes }]);
    const file = await receiveUpload(request(body), blobs, limits);
    const hash = createHash('sha256').update(bytes).digest('hex');
    expect(file).to.deep.equal({ filename: 'diagram.PNG', content_type: 'image/png', size: bytes.length, content_hash: hash });
    expect((await readAll((await blobs.get(hash))!)).equals(bytes)).to.equal(true);
  });

  it('reads an image width and height from its header; other files have none', async () => {
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x05, 0x00, 0x04, 0x00]), seededBytes(15, 20_000)]);
    const image = await receiveUpload(request(multipartBody([{ name: 'file', filename: 'dot.gif', content: gif }])), blobs, limits);
    expect(image).to.deep.include({ content_type: 'image/gif', width: 5, height: 4 });
    const text = await receiveUpload(request(multipartBody([{ name: 'file', filename: 'dot.txt', content: gif }])), blobs, limits);
    expect(text).to.not.have.any.keys('width', 'height');
  });

  it('takes the content type from the extension only', () => {
    expect(contentTypeOf('notes.txt')).to.equal('text/plain');
    expect(contentTypeOf('report.pdf')).to.equal('application/pdf');
    expect(contentTypeOf('README')).to.equal('application/octet-stream');
    expect(contentTypeOf('archive.unknownext')).to.equal('application/octet-stream');
  });

  it('refuses a file over the limit with 413 request_entity_too_large and stores nothing', async () => {
    const body = multipartBody([{ name: 'file', filename: 'big.bin', content: seededBytes(12, limits.maxFileBytes + 1) }]);
    const error = await rejection(receiveUpload(request(body), blobs, limits));
    expect(error.code).to.equal('request_entity_too_large');
    expect(await storedKeys()).to.deep.equal([]);
  });

  it('accepts a file of exactly the limit', async () => {
    const body = multipartBody([{ name: 'file', filename: 'exact.bin', content: seededBytes(13, limits.maxFileBytes) }]);
    expect((await receiveUpload(request(body), blobs, limits)).size).to.equal(limits.maxFileBytes);
  });

  it('refuses a truncated body as invalid_upload and stores nothing', async () => {
    const whole = multipartBody([{ name: 'file', filename: 'cut.bin', content: seededBytes(14, 20_000) }]);
    const error = await rejection(receiveUpload(request(whole.subarray(0, 10_000)), blobs, limits));
    expect(error.code).to.equal('invalid_upload');
    expect(await storedKeys()).to.deep.equal([]);
  });

  it('refuses a body that is not multipart with content_format_not_found', async () => {
    const error = await rejection(receiveUpload(request(Buffer.from('{"a":1}'), 'application/json'), blobs, limits));
    expect(error.code).to.equal('content_format_not_found');
  });

  it('refuses a body without a file part, or with an empty file name, as invalid_upload', async () => {
    const none = await rejection(receiveUpload(request(multipartBody([])), blobs, limits));
    expect(none.code).to.equal('invalid_upload');
    const unnamed = multipartBody([{ name: 'file', filename: '', content: 'x' }]);
    expect((await rejection(receiveUpload(request(unnamed), blobs, limits))).code).to.equal('invalid_upload');
  });

  it('refuses other parts, naming them, instead of dropping them', async () => {
    const body = multipartBody([
      { name: 'comment_id', content: '12' },
      { name: 'file', filename: 'a.txt', content: 'hello' },
    ]);
    const error = await rejection(receiveUpload(request(body), blobs, limits));
    expect(error.code).to.equal('invalid_parameter');
    expect(error.details.validation_errors?.[0]?.field).to.equal('comment_id');
    const wrongName = multipartBody([{ name: 'upload', filename: 'a.txt', content: 'hello' }]);
    const wrong = await rejection(receiveUpload(request(wrongName), blobs, limits));
    expect(wrong.details.validation_errors?.[0]?.field).to.equal('upload');
    expect(await storedKeys()).to.deep.equal([]);
  });

  it('refuses a second file', async () => {
    const body = multipartBody([
      { name: 'file', filename: 'a.txt', content: 'one' },
      { name: 'file', filename: 'b.txt', content: 'two' },
    ]);
    const error = await rejection(receiveUpload(request(body), blobs, limits));
    expect(error.code).to.equal('invalid_parameter');
    expect(readdirSync(join(root, 'tmp'))).to.deep.equal([]);
  });
});
