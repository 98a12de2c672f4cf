// The one error catalogue: every code of the spec's list with its HTTP status and its `error` text, and
// the function that turns a DomainError into the error hash the API returns.
//
// Choices where neither the spec nor the facts give a status (recorded here, see also the facts §4.2):
// - `unauthenticated` 401 (spec); a request without credentials that says `X-Requested-With:
//   XMLHttpRequest` answers 403 `invalid_authentication` (spec, "Shown cases").
// - Unparsable JSON: 400 `could_not_parse_body` (the real service answered 500 `unhandled_condition`; we
//   never answer 5xx to bad input). A body whose Content-Type is not JSON: 415 `content_format_not_found`.
// - `cant_parse_json` (400) stays in the catalogue for clients that know it; Storyline does not emit it.
// - A known path with an unsupported method: 405 `http_method_not_supported`.
// - `deadlock` 409: a write that kept conflicting with concurrent writes after its bounded retries.
// - `too_many_requests` 429 (our code; clients must accept unknown codes): a password sign-in refused
//   while its address is in back-off after repeated failures, for that login or for any (api/login-throttle.ts).
// - `storage_full` 507 (Storyline's own code): the disk is full; nothing was stored, reads go on, and
//   writes work again once space returns. Read-only data files answer 503 `component_unavailable`.

import type { ErrorCode } from '../domain/error-codes.js';
import { DomainError, mergeProblems, type DomainErrorDetails, type ValidationError } from '../domain/errors.js';

export type { ErrorCode };

export interface CatalogueEntry {
  status: number;
  error: string;
}

export const errorCatalogue = {
  api_external_error: { status: 502, error: 'An external service the request depends on failed.' },
  api_internal_error: {
    status: 500,
    error:
      'We encountered an unexpected, unhandleable error while processing your request.  The problem may be transient.  The failure has been logged.',
  },
  cant_parse_json: { status: 400, error: 'The JSON in the request could not be parsed.' },
  capability_access_denied: { status: 403, error: 'Your account does not have access to this capability.' },
  component_unavailable: { status: 503, error: 'A component needed to process the request is unavailable.' },
  content_format_not_found: {
    status: 415,
    error: 'The request body is not in a supported format.',
  },
  could_not_parse_body: { status: 400, error: 'The request body could not be parsed.' },
  deadlock: { status: 409, error: 'The request conflicted with concurrent changes. Please retry.' },
  duplicate_entry: { status: 409, error: 'An entry with the same identity already exists.' },
  enterprise_signup_error: { status: 400, error: 'The enterprise signup could not be completed.' },
  http_method_not_supported: { status: 405, error: 'The HTTP method is not supported by this endpoint.' },
  https_required: { status: 403, error: 'This request requires HTTPS.' },
  integration_error: { status: 502, error: 'The integration reported an error.' },
  invalid_authentication: { status: 403, error: 'Invalid authentication credentials were presented.' },
  invalid_parameter: { status: 400, error: 'One or more request parameters was missing or invalid.' },
  invalid_upload: { status: 400, error: 'The uploaded file is missing or invalid.' },
  not_acceptable: { status: 406, error: 'The requested response format is not available.' },
  request_entity_too_large: { status: 413, error: 'The request is too large.' },
  requires_get: { status: 405, error: 'This endpoint requires the GET method.' },
  requires_post: { status: 405, error: 'This endpoint requires the POST method.' },
  route_not_found: { status: 404, error: 'The path you requested has no valid endpoint.' },
  server_under_load: { status: 503, error: 'The server is under heavy load. Please retry later.' },
  storage_full: { status: 507, error: 'The server cannot store the change: it is out of storage space.' },
  timeout: { status: 504, error: 'The request took too long to process.' },
  too_many_requests: { status: 429, error: 'Too many requests. Please wait before retrying.' },
  unauthenticated: { status: 401, error: 'No authentication credentials were presented.' },
  unauthorized_operation: { status: 403, error: 'Authorization failure.' },
  unfound_resource: {
    status: 404,
    error:
      'The object you tried to access could not be found.  It may have been removed by another user, you may be using the ID of another object type, or you may be trying to access a sub-resource at the wrong point in a tree.',
  },
  unhandled_condition: { status: 500, error: 'An unexpected condition occurred.' },
  xhr_required: { status: 403, error: 'This request must be made with XMLHttpRequest.' },
} as const satisfies Record<ErrorCode, CatalogueEntry>;

export interface ErrorBody {
  kind: 'error';
  code: string;
  error: string;
  general_problem?: string;
  requirement?: string;
  possible_fix?: string;
  validation_errors?: ValidationError[];
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCatalogue, code);
}

/** Details a code carries when the thrower gave none (the facts' texts). */
const defaultDetails: Partial<Record<ErrorCode, DomainErrorDetails>> = {
  unauthorized_operation: {
    general_problem: "You aren't authorized to access the requested resource.",
    possible_fix:
      "Your project permissions are determined on the Project Membership page. If you are receiving this error you may be trying to access the wrong project, or the project API access is disabled, or someone listed as the project's Owner needs to change your membership type.",
  },
  unauthenticated: {
    possible_fix: 'Send your API token in the X-TrackerToken header or the token query parameter.',
  },
};

/**
 * Status and error hash of a DomainError whose code is in the catalogue. Optional keys are omitted when
 * empty; validation_errors has one entry per field.
 */
export function toErrorBody(error: DomainError): { status: number; body: ErrorBody } {
  const entry = errorCatalogue[error.code];
  const details = { ...defaultDetails[error.code], ...definedOnly(error.details) };
  const body: ErrorBody = { kind: 'error', code: error.code, error: entry.error };
  if (details.general_problem) body.general_problem = details.general_problem;
  if (details.requirement) body.requirement = details.requirement;
  if (details.possible_fix) body.possible_fix = details.possible_fix;
  if (details.validation_errors && details.validation_errors.length > 0) {
    body.validation_errors = mergeProblems(details.validation_errors);
  }
  return { status: entry.status, body };
}

function definedOnly(details: DomainErrorDetails): DomainErrorDetails {
  const out: DomainErrorDetails = {};
  for (const [key, value] of Object.entries(details) as [keyof DomainErrorDetails, never][]) {
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

/** The error a thrown value becomes: a DomainError with a catalogued code, or a 500 to be logged. */
export function classifyThrown(thrown: unknown): { error: DomainError; unexpected: boolean } {
  if (thrown instanceof DomainError && isErrorCode(thrown.code)) return { error: thrown, unexpected: false };
  return { error: apiError('unhandled_condition'), unexpected: true };
}

/** A DomainError for a catalogued code (the API layer's own failures). */
export function apiError(code: ErrorCode, details: DomainErrorDetails = {}): DomainError {
  return new DomainError(code, details);
}
