// Secrets that travel in a path (invitation links: `/invitations/{secret}`, under an API prefix or at
// the site root where the board serves its page) never reach a log line: every path that is logged
// passes through here. Segments are compared percent-decoded and case-blind, so an encoded spelling
// (`%69nvitations`, `invitations%2F<secret>`) hides nothing.

const SECRET_PLACEHOLDER = '{secret}';

/** `path` (no query) with the segment after each `invitations` segment replaced by `{secret}`. */
export function pathWithoutSecrets(path: string): string {
  const segments = path.split('/');
  for (let i = 0; i < segments.length; i++) {
    const decoded = safelyDecoded(segments[i]!).toLowerCase();
    if (decoded === 'invitations') {
      let next = i + 1;
      while (next < segments.length && segments[next] === '') next++;
      if (next < segments.length) segments[next] = SECRET_PLACEHOLDER;
      i = next;
    } else if (decoded.includes('invitations/')) {
      segments[i] = SECRET_PLACEHOLDER;
    }
  }
  return segments.join('/');
}

function safelyDecoded(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
