// Outgoing mail (invitation links). Optional: without an SMTP server configured, nothing is sent and
// invitations are only shown as links.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Whether an SMTP server is configured. */
  readonly configured: boolean;
  /**
   * True when the SMTP server accepted the message; false when it refused or could not be reached (the
   * adapter logs why, never the message text) or when no server is configured. Never throws.
   */
  send(message: MailMessage): Promise<boolean>;
}

/** The mailer of a server without SMTP: sends nothing. */
export const noMailer: Mailer = {
  configured: false,
  send: async () => false,
};
