// The v5 resources the board reads, as far as it reads them (clients ignore attributes they do not know).

export type StoryState = 'unscheduled' | 'unstarted' | 'planned' | 'started' | 'finished' | 'delivered' | 'accepted' | 'rejected';
export type StoryType = 'feature' | 'bug' | 'chore' | 'release';
export type Role = 'owner' | 'member' | 'viewer';

export interface Person {
  kind: 'person';
  id: number;
  name: string;
  initials?: string;
  username?: string;
  email?: string;
}

export interface TimeZone {
  olson_name: string;
  offset?: string;
}

export interface MembershipSummary {
  id: number;
  project_id: number;
  project_name: string;
  role: Role;
}

export interface Me {
  kind: 'me';
  id: number;
  name: string;
  initials?: string;
  username?: string;
  email?: string;
  api_token: string;
  time_zone?: TimeZone;
  projects: MembershipSummary[];
  accounts?: Array<{ id: number; name: string }>;
}

export interface Project {
  kind: 'project';
  id: number;
  name: string;
  version: number;
  point_scale: string;
  bugs_and_chores_are_estimatable: boolean;
  automatic_planning: boolean;
  enable_tasks: boolean;
  current_iteration_number: number;
  current_velocity?: number;
  velocity_averaged_over?: number;
  iteration_length?: number;
  time_zone?: TimeZone;
  public?: boolean;
}

export interface Label {
  id: number;
  name: string;
}

export interface Blocker {
  id: number;
  story_id?: number;
  description?: string;
  resolved: boolean;
}

export interface Story {
  kind: 'story';
  id: number;
  project_id: number;
  name: string;
  description?: string;
  story_type: StoryType;
  current_state: StoryState;
  estimate?: number;
  requested_by_id?: number;
  owner_ids: number[];
  labels: Label[];
  comment_ids?: number[];
  blockers?: Blocker[];
  accepted_at?: string;
  updated_at?: string;
  url?: string;
}

export interface Iteration {
  kind: 'iteration';
  number: number;
  start: string;
  finish: string;
  length?: number;
  team_strength?: number;
  velocity?: number;
  points?: number;
  effective_points?: number;
  accepted_points?: number;
  stories: Story[];
}

export interface Membership {
  id: number;
  project_id: number;
  role: Role;
  person: Person;
}

export interface Epic {
  id: number;
  project_id: number;
  name: string;
  description?: string;
  label?: Label;
  url?: string;
}

export interface Task {
  id: number;
  story_id: number;
  description: string;
  complete: boolean;
  position: number;
}

export interface FileAttachment {
  kind: 'file_attachment';
  id: number;
  filename: string;
  content_type?: string;
  size?: number;
  download_url?: string;
  /** True once the server made the image's thumbnail (then at `thumbnail_url`). */
  thumbnailable?: boolean;
  thumbnail_url?: string;
}

export interface Comment {
  id: number;
  story_id?: number;
  text?: string;
  person_id?: number;
  created_at: string;
  file_attachments?: FileAttachment[];
}

export interface ReviewType {
  id: number;
  name: string;
  hidden: boolean;
}

export interface Review {
  id: number;
  story_id: number;
  review_type_id: number;
  reviewer_id?: number;
  status: 'unstarted' | 'in_review' | 'pass' | 'revise';
}

export interface StoryDetail extends Story {
  tasks: Task[];
  comments: Comment[];
  blockers: Blocker[];
  reviews: Review[];
  follower_ids?: number[];
}

export interface Activity {
  kind: string;
  guid: string;
  project_version: number;
  message: string;
  highlight?: string;
  occurred_at: string;
  performed_by?: { id: number; name: string; initials?: string };
  primary_resources?: Array<{ kind: string; id: number; name?: string }>;
  changes?: Array<{ kind: string; change_type: string; id: number; new_values?: Record<string, unknown>; original_values?: Record<string, unknown> }>;
}

export interface NotificationItem {
  id: number;
  message: string;
  context?: string;
  notification_type: string;
  action?: string;
  read_at?: string;
  created_at: string;
  project?: { id: number; name: string };
  story?: { id: number; name: string };
  epic?: { id: number; name: string };
  performer?: { id: number; name: string };
}

export interface SearchResult {
  query: string;
  stories: { stories: Story[]; total_hits: number; total_points?: number; total_hits_with_done?: number };
  epics: { epics: Epic[]; total_hits: number };
}

export interface Invitation {
  kind: 'invitation';
  email: string;
  project_id: number;
  project_name?: string;
  person_id?: number;
  inviter_name?: string;
  url?: string;
  expires_at: string;
  emailed?: boolean;
}
