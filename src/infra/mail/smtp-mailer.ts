// The Mailer over SMTP with nodemailer: one transport from `STORYLINE_SMTP_URL` (`smtp://user:pass@host:587`,
// `smtps://...` for TLS from the start), messages from `STORYLINE_MAIL_FROM`. Connecting and each SMTP
// step are bounded, so an unreachable or stalled server makes a request wait seconds, not minutes. A
// failure is logged with the server's reason and the recipient, never the message (it holds a link's
// secret) nor the URL (it may hold the SMTP password). nodemailer is loaded only when a mailer is made,
// so a server or CLI command without SMTP never pays for loading it.
import type { Mailer, MailMessage } from '../../ports/mailer.js';
import type { Log } from '../log.js';

export interface SmtpMailerOptions {
  url: string;
  from: string;
  /** Bound of connecting, of the server's greeting, and of each idle wait on the socket (ms). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export function smtpMailer(options: SmtpMailerOptions, log: Pick<Log, 'warn'>): Mailer {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const transport = import('nodemailer').then(({ createTransport }) => createTransport({
    url: options.url,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    logger: false,
    debug: false,
  }));
  return {
    configured: true,
    async send(message: MailMessage) {
      try {
        await (await transport).sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text });
        return true;
      } catch (error) {
        log.warn('mail not sent', { to: message.to, subject: message.subject, error: error instanceof Error ? error.message : String(error) });
        return false;
      }
    },
  };
}
