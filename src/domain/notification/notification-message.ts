// The `message` of a notification, worded at read time from its type, action and the performer's name
// (the recorded mention wording, facts §10: "You were mentioned by <performer name>"; the others are
// ours, recorded in docs/decisions.md). Pure.
export interface NotificationWording {
  notification_type: string;
  action: string;
  /** `story` or `epic`: what the notification is about. */
  subject_kind: string;
}

export function notificationMessage(notification: NotificationWording, performerName: string): string {
  const about = `this ${notification.subject_kind}`;
  switch (notification.notification_type) {
    case 'comment_with_mention':
      return `You were mentioned by ${performerName}`;
    case 'comment':
      return `${performerName} commented on ${about}`;
    case 'blocker':
      return `${performerName} added a blocker to ${about}`;
    default:
      return `${performerName} ${STORY_ACTION_WORDS[notification.action] ?? 'changed'} ${about}`;
  }
}

const STORY_ACTION_WORDS: Readonly<Record<string, string>> = {
  ownership: 'made you an owner of',
  rejection: 'rejected',
  acceptance: 'accepted',
  delivery: 'delivered',
};
