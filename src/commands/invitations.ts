// Invitations (Storyline's addition to Tracker's API, for people joining through the board): a project
// owner makes a one-time link for a member who cannot sign in yet (no password); whoever opens it sees
// what it invites to and accepts it by choosing name, username and password (PeopleCommands).
//
// The secret lives only in the credential store, as a digest (PersonSecretsPort): never in an event, a
// read model or a log line. One invitation per person: a new one replaces the old, whose link stops
// working. A link counts while it is unused, unexpired (7 days), its person still has no password and
// is still a member of the project; otherwise it is unknown (404), whatever the reason.
// With an SMTP server configured the link is also mailed; a mail the server refuses or cannot take
// leaves the invitation valid, answered `emailed: false` (the mailer logs why).
import { PROJECT_ROLES } from '../domain/project-documents.js';
import { invalidField, unfound } from '../domain/errors.js';
import type { PersonSecretsPort, StoredInvitation } from '../ports/credentials.js';
import type { Mailer } from '../ports/mailer.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandMeta } from './command-handler.js';
import type { InvitedProfile, PeopleCommands } from './people.js';
import type { ReadView } from './read-view.js';

export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export interface InvitationDeps {
  secrets: PersonSecretsPort;
  people: PeopleCommands;
  peopleRead: ReadView;
  projects: ReadView;
  memberships: ReadView;
  mailer: Mailer;
  /** The board page an invitation's secret opens. */
  invitationUrl(secret: string): string;
}

/** A made invitation as the inviter sees it (the `invitation` resource, with `url` and `emailed`). */
export interface MadeInvitation {
  project_id: number;
  person_id: number;
  email: string;
  url: string;
  expires_at: number;
  emailed: boolean;
}

/** What a secret invites to, as whoever holds the link sees it. */
export interface InvitationView {
  email: string;
  project_id: number;
  project_name: string;
  inviter_name: string;
  expires_at: number;
}

export class InvitationCommands {
  constructor(private readonly deps: InvitationDeps) {}

  /** A new link for the person of a project membership (the caller checked the membership is active). */
  async invite(projectId: number, personId: number, meta: CommandMeta & { actorId: number }): Promise<MadeInvitation> {
    if (await this.deps.secrets.hasPassword(personId)) {
      throw invalidField('membership_id', 'This member already has an account: they sign in with their password, no invitation is needed.');
    }
    const [person, project, inviter] = await Promise.all([this.person(personId), this.deps.projects.findOne({ id: projectId }), this.person(meta.actorId)]);
    if (!person || !project) throw unfound();
    const expiresAt = meta.now + INVITATION_LIFETIME_MS;
    const secret = await this.deps.secrets.invite({ personId, projectId, inviterId: meta.actorId, expiresAt });
    const url = this.deps.invitationUrl(secret);
    const email = String(person['email']);
    const emailed =
      this.deps.mailer.configured &&
      (await this.deps.mailer.send(invitationMail({ to: email, url, expiresAt, projectName: String(project['name']), inviterName: nameOf(inviter) })));
    return { project_id: projectId, person_id: personId, email, url, expires_at: expiresAt, emailed };
  }

  /** What a secret invites to: email, project, inviter and expiry; 404 `unfound_resource` when it no longer invites. */
  async describe(secret: string, now: number): Promise<InvitationView> {
    const { invitation, project, person } = await this.valid(secret, now);
    const inviter = await this.person(invitation.inviterId);
    return {
      email: String(person['email']),
      project_id: invitation.projectId,
      project_name: String(project['name']),
      inviter_name: nameOf(inviter),
      expires_at: invitation.expiresAt,
    };
  }

  /** Accepts the invitation: the invitee's profile and password; returns the person and their API token. */
  async accept(secret: string, profile: InvitedProfile, meta: CommandMeta): Promise<{ person: Doc; apiToken: string }> {
    await this.valid(secret, meta.now);
    return this.deps.people.acceptInvitation(secret, profile, meta);
  }

  private async valid(secret: string, now: number): Promise<{ invitation: StoredInvitation; project: Doc; person: Doc }> {
    const invitation = await this.deps.secrets.invitation(secret, now);
    if (!invitation) throw unfound();
    const { personId, projectId } = invitation;
    const [hasPassword, membership, project, person] = await Promise.all([
      this.deps.secrets.hasPassword(personId),
      this.deps.memberships.findOne({ project_id: projectId, person_id: personId, role: { $in: PROJECT_ROLES } }),
      this.deps.projects.findOne({ id: projectId }),
      this.person(personId),
    ]);
    if (hasPassword || !membership || !project || !person) throw unfound();
    return { invitation, project, person };
  }

  private person(id: number): Promise<Doc | null> {
    return this.deps.peopleRead.findOne({ id });
  }
}

function nameOf(person: Doc | null): string {
  return typeof person?.['name'] === 'string' ? person['name'] : 'Someone';
}

/** The invitation mail: plain text with the link and when it expires. */
export function invitationMail(invitation: { to: string; url: string; expiresAt: number; projectName: string; inviterName: string }) {
  const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const project = oneLine(invitation.projectName);
  const inviter = oneLine(invitation.inviterName);
  const expires = `${new Date(invitation.expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return {
    to: invitation.to,
    subject: `${inviter} invited you to ${project} on Storyline`,
    text: [
      `${inviter} invited you to the project "${project}" on Storyline.`,
      '',
      'Open this link to choose your name, username and password:',
      invitation.url,
      '',
      `The link works once and until ${expires}. If you did not expect this mail, ignore it.`,
      '',
    ].join('\n'),
  };
}
