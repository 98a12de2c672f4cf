// How a file handed out as a download is presented (`raw` results with a file name: uploaded files and
// the CSV exports). The bytes may be anyone's, and the board is served from the same origin, so nothing
// that can run script is ever shown inline:
// - inline (when asked) only raster images, PDF and text; text of any type is shown as
//   `text/plain; charset=utf-8`, so `text/html` inline is never `text/html`;
// - everything else (HTML, SVG, XML, unknown bytes) is an attachment whatever `inline=` says, with its
//   type as stored (`application/octet-stream` when that is not a well-formed media type);
// - every download carries nosniff, a sandboxing Content-Security-Policy and a same-origin resource policy;
// - the file name loses control characters and bidirectional overrides / isolates (which would let
//   `txt.exe` read as `exe.txt`) in both the ASCII fallback and `filename*`.
import type { HeaderBag } from './response-headers.js';

export interface DownloadedFile {
  /** The media type as stored (what the file attachment shows as `content_type`). */
  contentType: string;
  filename: string;
  /** The client asked to see it in the browser (`inline=true`). */
  inlineAsked: boolean;
}

/** Raster images browsers display: none of them can carry script. */
const INLINE_IMAGES = new Set([
  'image/png', 'image/apng', 'image/jpeg', 'image/pjpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp',
  'image/x-icon', 'image/vnd.microsoft.icon',
]);

/** Headers every download carries, inline or not. */
export const DOWNLOAD_ISOLATION_HEADERS: Readonly<HeaderBag> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "sandbox; default-src 'none'",
  'Cross-Origin-Resource-Policy': 'same-origin',
});

const PLAIN_TEXT = 'text/plain; charset=utf-8';
const OCTET_STREAM = 'application/octet-stream';

/** Content-Type, Content-Disposition and the isolation headers of a download. */
export function downloadHeaders(file: DownloadedFile): HeaderBag {
  const { contentType, inline } = presentation(file.contentType, file.inlineAsked);
  return { ...DOWNLOAD_ISOLATION_HEADERS, 'Content-Type': contentType, 'Content-Disposition': contentDisposition(file.filename, inline) };
}

/** The type a file is served as, and whether it may be shown inline. */
export function presentation(storedType: string, inlineAsked: boolean): { contentType: string; inline: boolean } {
  const essence = mediaTypeEssence(storedType);
  if (essence === null) return { contentType: OCTET_STREAM, inline: false };
  if (INLINE_IMAGES.has(essence) || essence === 'application/pdf') return { contentType: essence, inline: inlineAsked };
  if (essence.startsWith('text/') && !isMarkup(essence)) return { contentType: inlineAsked ? PLAIN_TEXT : storedType.trim(), inline: inlineAsked };
  return { contentType: storedType.trim(), inline: false };
}

const TOKEN = "[!#$%&'*+.^_`|~0-9a-z-]+";
/** RFC 9110 `type/subtype *( ; name=value )`, the value a token or a quoted string. */
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\\\r\\n]*"))*$`, 'i');

/** `type/subtype` lower-cased, or null when the text is not a well-formed media type. */
function mediaTypeEssence(mediaType: string): string | null {
  const trimmed = mediaType.trim();
  return MEDIA_TYPE.test(trimmed) ? trimmed.split(';')[0]!.trim().toLowerCase() : null;
}

/** Text a browser would render as a document: HTML and XML (with their script and stylesheets). */
function isMarkup(essence: string): boolean {
  return essence === 'text/html' || essence === 'text/xml' || essence === 'text/xsl' || essence.endsWith('+xml');
}

/** Bidirectional embeddings, overrides, isolates and marks, every control character, line separators. */
const UNSAFE_NAME_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
/** Halves of a surrogate pair standing alone (encodeURIComponent throws on them). */
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** RFC 6266: an ASCII fallback (`"` and `\` too replaced) and the UTF-8 name in `filename*`. */
export function contentDisposition(filename: string, inline: boolean): string {
  const shown = filename.replace(UNSAFE_NAME_CHARACTERS, '_').replace(LONE_SURROGATES, '\ufffd');
  const ascii = shown.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(shown)}`;
}
