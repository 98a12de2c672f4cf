// A route's declared answer (`RouteDefinition.answers`) held against what its handler returned: the
// OpenAPI document states the declaration, so a handler answering anything else is a programming error
// (the app answers 500 and logs it) rather than a reference that quietly lies.
import { mediaTypeOf } from './request-body.js';
import type { ApiResult, RouteAnswer, RouteDefinition } from './route-table.js';

/** What a route answering a stream (`kind: 'stream'`) declares. */
export const EVENT_STREAM = 'text/event-stream';

/** Any media type: a download answers the stored file's own. */
export const ANY_MEDIA_TYPE = '*/*';

/** Throws when `result` is not what `route` declares. */
export function assertAnswersAsDeclared(route: RouteDefinition, result: ApiResult): void {
  const mismatch = answerMismatch(route.answers, result);
  if (mismatch !== null) throw new Error(`route ${route.method} ${route.path} declares ${describe(route.answers)} but answered ${mismatch}`);
}

/** What about `result` differs from `answer`, or null when it is as declared. */
export function answerMismatch(answer: RouteAnswer, result: ApiResult): string | null {
  if (answer === 'empty') return result.kind === 'empty' ? null : `a ${result.kind} result`;
  if ('raw' in answer) {
    if (result.kind === 'stream') return answer.raw === EVENT_STREAM ? null : 'an event stream';
    if (result.kind !== 'raw') return `a ${result.kind} result`;
    const types = typeof answer.raw === 'string' ? [answer.raw] : answer.raw;
    const given = mediaTypeOf(result.contentType);
    return types.some((type) => mediaTypeMatches(mediaTypeOf(type), given)) ? null : given;
  }
  if (result.kind !== 'resource') return `a ${result.kind} result`;
  if (result.type !== answer.type) return `type ${result.type}`;
  if (Array.isArray(result.value) !== (answer.list === true)) return Array.isArray(result.value) ? 'a list' : 'one resource';
  if ((result.pagination !== undefined) !== (answer.paginated === true)) return result.pagination ? 'a paginated list' : 'an unpaginated list';
  if ((result.created === true) !== (answer.created === true)) return result.created ? 'a create' : 'no create';
  return null;
}

/** ANY_MEDIA_TYPE matches every type, `image/*` every image type, anything else itself. */
function mediaTypeMatches(declared: string, given: string): boolean {
  if (declared === ANY_MEDIA_TYPE || declared === given) return true;
  return declared.endsWith('/*') && given.startsWith(declared.slice(0, -1));
}

function describe(answer: RouteAnswer): string {
  if (answer === 'empty') return 'an empty answer';
  if ('raw' in answer) return `bytes of ${String(answer.raw)}`;
  return `${answer.created ? 'a created ' : ''}${answer.paginated ? 'paginated ' : ''}${answer.list ? 'list of ' : ''}${answer.type}`;
}
