// Invitations mailed over SMTP (STORYLINE_SMTP_URL, nodemailer), against a local SMTP server from the
// `smtp-server` package: the mail arrives with the link; a server that refuses the mail, or none at the
// address, leaves the invitation valid and answered `emailed: false`, the failure logged without the link.
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { SMTPServer } from 'smtp-server';
import { createLog } from '../../src/infra/log.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

interface LocalSmtp {
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** An SMTP server on an ephemeral port, with login `mailer` / `mail-password`; `refuse` answers every message 550. */
async function localSmtp(refuse = false): Promise<LocalSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'mailer' && auth.password === 'mail-password') callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refuse) {
          callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
          return;
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        received.push({ from, to: session.envelope.rcptTo.map((to) => to.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The text of a single-part mail, its transfer encoding undone. */
function bodyText(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

describe('API: invitations by mail', function () {
  this.timeout(60_000);
  let smtp: LocalSmtp;
  let app: StorylineApp;
  let owner: PersonHandle;
  let projectId: number;
  const logged: string[] = [];

  async function serve(smtpUrl: string): Promise<void> {
    logged.length = 0;
    app = await storylineApp({
      env: { STORYLINE_SMTP_URL: smtpUrl, STORYLINE_MAIL_FROM: 'Storyline <board@storyline.test>' },
      log: createLog('info', (line) => void logged.push(line)),
    });
    owner = await app.person('Olivia Owner');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Mailed', new_account_name: 'Mail Inc' } })).json.id;
  }

  async function invite(email: string) {
    const membership = (await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { email } })).json;
    return app.api('POST', `/projects/${projectId}/memberships/${membership.id}/invitation`, { as: owner });
  }

  afterEach(async () => {
    await app?.close();
    await smtp?.close();
  });

  it('mails the link to the invited person and answers emailed: true', async () => {
    smtp = await localSmtp();
    await serve(`smtp://mailer:mail-password@127.0.0.1:${smtp.port}`);
    const res = await invite('mailed@example.com');
    expect(res.status, res.text).to.equal(200);
    expect(res.json.emailed).to.equal(true);
    expect(smtp.received).to.have.length(1);
    const [mail] = smtp.received;
    expect(mail!.from).to.equal('board@storyline.test');
    expect(mail!.to).to.deep.equal(['mailed@example.com']);
    expect(mail!.raw).to.match(/^Subject: Olivia Owner invited you to Mailed on Storyline\r$/m);
    const text = bodyText(mail!.raw);
    expect(text).to.contain(res.json.url).and.to.contain('Olivia Owner invited you to the project "Mailed"').and.to.contain('2024-01-17 12:00 UTC');
    // the mailed link is the one the API answered, and it works
    expect((await app.api('GET', `/invitations/${res.json.url.split('/').pop()}`)).status).to.equal(200);
  });

  it('leaves the invitation valid and answers emailed: false when the server refuses the mail, logging why without the link', async () => {
    smtp = await localSmtp(true);
    await serve(`smtp://mailer:mail-password@127.0.0.1:${smtp.port}`);
    const res = await invite('refused@example.com');
    expect(res.status, res.text).to.equal(200);
    expect(res.json.emailed).to.equal(false);
    const secret = res.json.url.split('/').pop();
    expect((await app.api('GET', `/invitations/${secret}`)).status).to.equal(200);
    const warnings = logged.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['message'] === 'mail not sent');
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ level: 'warn', to: 'refused@example.com' });
    expect(String(warnings[0]!['error'])).to.contain('Mailbox unavailable');
    expect(logged.join('')).not.to.contain(secret).and.not.to.contain('mail-password');
  });

  it('answers emailed: false when the SMTP login is refused or no server listens', async () => {
    smtp = await localSmtp();
    await serve(`smtp://mailer:wrong-password@127.0.0.1:${smtp.port}`);
    expect((await invite('badlogin@example.com')).json.emailed).to.equal(false);
    await app.close();
    const port = smtp.port;
    await smtp.close();
    await serve(`smtp://127.0.0.1:${port}`);
    const res = await invite('nobody-listens@example.com');
    expect(res.status, res.text).to.equal(200);
    expect(res.json.emailed).to.equal(false);
    expect(logged.some((line) => line.includes('mail not sent'))).to.equal(true);
  });
});
