// Every error code a request can end with: the spec's list, and Storyline's own (storage_full,
// too_many_requests; clients must accept unknown codes). The API's error catalogue
// (api/error-catalogue.ts) gives each its HTTP status and text and must cover exactly these.

export const ERROR_CODES = [
  'api_external_error',
  'api_internal_error',
  'cant_parse_json',
  'capability_access_denied',
  'component_unavailable',
  'content_format_not_found',
  'could_not_parse_body',
  'deadlock',
  'duplicate_entry',
  'enterprise_signup_error',
  'http_method_not_supported',
  'https_required',
  'integration_error',
  'invalid_authentication',
  'invalid_parameter',
  'invalid_upload',
  'not_acceptable',
  'request_entity_too_large',
  'requires_get',
  'requires_post',
  'route_not_found',
  'server_under_load',
  'timeout',
  'unauthenticated',
  'unauthorized_operation',
  'unfound_resource',
  'unhandled_condition',
  'xhr_required',
  'storage_full',
  'too_many_requests',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
