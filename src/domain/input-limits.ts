// How much one request may carry: the one table of text lengths (in characters, as the service counted
// them: code points), list lengths and search-query sizes. The request schemas (src/api) apply them so
// that an oversized value is refused with 400 `invalid_parameter` naming the key before it becomes an
// event; the search parser (src/queries/search/) applies SEARCH_LIMITS.
//
// Where a number comes from: the facts (§2.3, §4.3: project name 50, task description 1000), the issue
// text (story name 5,000), the domain rules that already held a limit (re-used here, not repeated), and
// otherwise a documented choice (docs/decisions.md, "Limits").
import { ACCOUNT_NAME_MAX_LENGTH } from './account/account-rules.js';
import { INITIALS_MAX_LENGTH, NAME_MAX_LENGTH } from './person/person-rules.js';
import { POINT_SCALE_MAX_LENGTH } from './project/point-scale.js';
import { DESCRIPTION_MAX_LENGTH, PROFILE_CONTENT_MAX_LENGTH, PROJECT_NAME_MAX_LENGTH } from './project/project-settings.js';
import { MAX_TASK_DESCRIPTION } from './task/task-rules.js';
import { MAX_REVIEW_TYPE_NAME } from './review/review-state.js';
import { MAX_NESTED_REVIEWS } from './review/review-rules.js';

/** Maximum characters of each text attribute a request may set. */
export const TEXT_LIMITS = {
  story_name: 5000,
  story_description: 20000,
  external_id: 255,
  label_name: 255,
  review_type_name: MAX_REVIEW_TYPE_NAME,
  task_description: MAX_TASK_DESCRIPTION,
  comment_text: 20000,
  epic_name: 5000,
  epic_description: 20000,
  project_name: PROJECT_NAME_MAX_LENGTH,
  project_description: DESCRIPTION_MAX_LENGTH,
  profile_content: PROFILE_CONTENT_MAX_LENGTH,
  point_scale: POINT_SCALE_MAX_LENGTH,
  account_name: ACCOUNT_NAME_MAX_LENGTH,
  person_name: NAME_MAX_LENGTH,
  initials: INITIALS_MAX_LENGTH,
  email: 255,
  username: 40,
  /** `alternate_link` of an ext attachment. */
  attachment_link: 2048,
  /** A webhook's `webhook_url`. */
  webhook_url: 2048,
  /** A webhook's signing `secret`. */
  webhook_secret: 255,
  /** Short enumerations and identifiers sent as text (state, type, color, time zone, role ...). */
  short_text: 100,
} as const;

/** Maximum entries of each list a request may send. */
export const LIST_LIMITS = {
  /** `labels` and `label_ids` of a story write (each). */
  story_labels: 100,
  /** Nested `tasks` of a story create. */
  story_tasks: 100,
  owner_ids: 100,
  follower_ids: 100,
  /** `file_attachments` of a rejection comment. */
  comment_attachments: 100,
  /** Nested `comments` of a story or epic create, nested `blockers` of a story create (each). */
  nested_comments: 100,
  nested_blockers: 100,
  /** Nested `reviews` of a story create. */
  nested_reviews: MAX_NESTED_REVIEWS,
  /** `emails` of POST /my/people. */
  emails: 100,
} as const;

/**
 * The cost bound of one search query (`query` of /search, `filter` of the stories and epics lists, a saved
 * search), the one table the search parser (src/queries/search/) reads: its length in UTF-16 code units
 * (what `string.length` counts), its terms (each becomes a clause of the compiled filter), its parenthesis
 * depth (the parser recurses once per level), how many stories one /search answer lists (the real
 * service's UI showed at most 500 per project), and the work one search may do in the read store (units
 * of ReadBudget: an index entry read or a document examined, and a condition tested on a document; see
 * docs/decisions.md, "Search work budget").
 */
export const SEARCH_LIMITS = {
  query_length: 20_000,
  terms: 200,
  depth: 32,
  listed_stories: 500,
  work: 4_000_000,
} as const;
