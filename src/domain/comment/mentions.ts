// `@username` mentions in comment text (facts §10): a mentioned project member (not a viewer) follows
// the story or epic, and the comment records whom it mentioned, for the notifications that follow.
// Usernames live with people, outside the project's stream, so the caller looks up the usernames
// `mentionedUsernames` finds and passes the people it found in the command.

/** Someone the caller found for a username the text mentions. */
export interface MentionedPerson {
  username: string;
  person_id: number;
}

/** Tracker usernames: letters, digits, `_`, `-` and `.`, not ending in `.` (so "@bob." mentions bob). */
const MENTION = /(?<![\w@.])@([A-Za-z0-9_][A-Za-z0-9_.-]*[A-Za-z0-9_-]|[A-Za-z0-9_])/g;

/** The distinct usernames a text mentions, lower-cased, in first-seen order. */
export function mentionedUsernames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(MENTION)) {
    const name = match[1]!.toLowerCase();
    if (!names.includes(name)) names.push(name);
  }
  return names;
}
