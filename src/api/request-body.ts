// Reading and parsing request bodies (spec, Conventions 3-5). Choices:
// - A body is JSON, sent with `Content-Type: application/json` (parameters such as charset allowed), or a
//   form, `application/x-www-form-urlencoded`, as Tracker accepted (form-body.ts: the same object with
//   string values); another content type answers 415 `content_format_not_found`, unparsable JSON 400
//   `could_not_parse_body`, JSON that is not an object 400 `could_not_parse_body`.
// - DELETE must not carry a body: 400 `invalid_parameter`. Bodies of GET requests are read and ignored.
// - Above `maxBodyBytes`: 413 `request_entity_too_large` (announced Content-Length checked before reading).
// - Query parameters cannot be sent in the body: the reserved names below are dropped from a body, so
//   `{"fields": ...}` or `{"token": ...}` in a body has no effect.

import type { IncomingMessage } from 'node:http';
import { invalidField } from '../domain/errors.js';
import { apiError } from './error-catalogue.js';
import { parseFormBody } from './form-body.js';
import { readsRawBody, type HttpMethod, type RouteDefinition } from './route-table.js';

const RESERVED_QUERY_PARAMETERS = ['fields', 'envelope', 'date_format', 'token', '_method'];

export interface ParsedBody {
  body: Record<string, unknown>;
  rawBody: { contentType: string; bytes: Buffer } | null;
}

const EMPTY: ParsedBody = Object.freeze({ body: Object.freeze({}) as Record<string, unknown>, rawBody: null });

const NO_BYTES = Buffer.alloc(0);

/**
 * The client went away (closed, or was cut off by the server's request timeout) before its body was
 * complete: nobody is left to answer, and the HTTP listener logs it once (infra/http-server.ts).
 */
export class RequestAbandoned extends Error {
  constructor() {
    super('the client went away before the request body was complete');
    this.name = 'RequestAbandoned';
  }
}

/** Collects the body bytes, refusing more than `maxBytes`. */
/**
 * How much of a body left unread by a refusal (no such route, bad credentials, too large for its route)
 * is read and thrown away so the client can finish sending and read the answer: 64 MiB, more than any
 * upload a client sends. A longer announced body is answered at once and the connection closed.
 */
export const UNREAD_BODY_DISCARD_BYTES = 64 * 1024 * 1024;

/**
 * Answers to a request whose body was not read: read and discard that body (at most
 * UNREAD_BODY_DISCARD_BYTES, then the connection is cut) so the connection stays usable and a client
 * still uploading never meets a reset before it reads the answer. False when the announced body is
 * longer than that: the caller answers with `Connection: close`.
 */
export function discardUnreadBody(req: IncomingMessage): boolean {
  const announced = req.headers['content-length'];
  if (announced !== undefined && !(Number(announced) <= UNREAD_BODY_DISCARD_BYTES)) return false;
  if (req.destroyed || req.complete) return true;
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > UNREAD_BODY_DISCARD_BYTES) req.socket.destroy();
  });
  req.on('error', () => undefined); // a client going away mid-body is no one's error now
  req.resume();
  return true;
}

export async function readBodyBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const announced = req.headers['content-length'];
  if (announced !== undefined && Number(announced) > maxBytes) throw tooLarge(maxBytes);
  // HTTP/1.1: a request with neither Content-Length nor Transfer-Encoding has no body (most GETs).
  if (announced === '0' || (announced === undefined && req.headers['transfer-encoding'] === undefined)) return NO_BYTES;
  const chunks = await collectChunks(req, maxBytes);
  if (chunks === null) throw tooLarge(maxBytes);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * The body's chunks, or null once they pass `maxBytes`: the rest is left to the refusal, which discards
 * it as it arrives (discardUnreadBody) so the client reads its 413. Listens to the stream's events
 * directly: an async iterator over the request cost a few percent of a POST's time in the serving thread.
 */
function collectChunks(req: IncomingMessage, maxBytes: number): Promise<Buffer[] | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      stop();
      req.on('error', () => undefined); // a client going away while the rest is discarded is no one's error
      resolve(null);
    };
    const onEnd = () => {
      stop();
      resolve(chunks);
    };
    const onError = (error: Error) => {
      stop();
      reject(!req.complete && (req.destroyed || req.socket.destroyed) ? new RequestAbandoned() : error);
    };
    // Closed before its end: the client went away (or was cut off) mid-body.
    const onClose = () => {
      stop();
      reject(new RequestAbandoned());
    };
    if (req.readableEnded) return resolve(chunks);
    if (req.destroyed) return reject(new RequestAbandoned());
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

export function parseBody(bytes: Buffer, contentType: string | undefined, method: HttpMethod, route: RouteDefinition): ParsedBody {
  if (bytes.length === 0 || method === 'GET') return EMPTY;
  if (method === 'DELETE') throw invalidField('body', 'DELETE requests must not carry a body.');
  if (readsRawBody(route)) return { body: {}, rawBody: { contentType: contentType ?? '', bytes } };
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === 'application/x-www-form-urlencoded') return withoutReservedNames(parseFormBody(bytes.toString('utf8')));
  if (mediaType !== 'application/json') {
    throw apiError('content_format_not_found', {
      general_problem: `The request body has Content-Type '${contentType ?? ''}'.`,
      possible_fix: "Send the body as JSON with the header 'Content-Type: application/json', or as a form (application/x-www-form-urlencoded).",
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw apiError('could_not_parse_body', { general_problem: 'The request body is not valid JSON.' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw apiError('could_not_parse_body', { general_problem: 'The request body must be a JSON object.' });
  }
  return withoutReservedNames(parsed as Record<string, unknown>);
}

function withoutReservedNames(body: Record<string, unknown>): ParsedBody {
  for (const name of RESERVED_QUERY_PARAMETERS) delete body[name];
  return { body, rawBody: null };
}

/** The media type of a Content-Type header, lower case, without parameters ('' when none). */
export function mediaTypeOf(contentType: string | undefined): string {
  if (!contentType) return '';
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

function tooLarge(maxBytes: number) {
  return apiError('request_entity_too_large', { requirement: `Request bodies must be ${maxBytes} bytes or less.` });
}
