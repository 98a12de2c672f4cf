// People: adding a person with a password (operator CLI, demo set-up), inviting one by email (project and
// account invitations, POST /my/people), an invited person completing their profile, profile updates,
// password changes and the known-people list. Credentials are enrolled BEFORE the person's first event,
// so a person in the log always has a token (a crash in between leaves unused credentials for an id
// nobody holds, which is harmless).
//
// Accepting an invitation writes the profile (an event on the person stream) BEFORE the password, which
// uses up the secret in the same credential write: a crash in between leaves a renamed person whose
// invitation still works, and accepting again finishes (their own username is not "taken").
//
// Email and username uniqueness is checked against the `people` read model. Creations made by this
// process are serialised, so they never race each other; two processes creating the same email at the
// same instant could both succeed (accepted: people are created rarely).
import { decideCreatePerson } from '../domain/person/create-person.js';
import { decideRememberPeople } from '../domain/person/remember-people.js';
import { decideUpdatePerson } from '../domain/person/update-person.js';
import { initialsOf, type TakenIdentities } from '../domain/person/person-rules.js';
import { invalidField, unfound } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import { emptyState } from '../domain/decision-states.js';
import type { PersonSecretsPort } from '../ports/credentials.js';
import type { IdAllocation } from '../ports/id-allocation.js';
import type { Doc } from '../ports/read-store.js';
import type { ReadView } from './read-view.js';
import type { CommandMeta } from './command-handler.js';
import type { ResourceWriter } from './resource-writer.js';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

export interface PeopleDeps {
  writer: ResourceWriter;
  ids: IdAllocation;
  people: ReadView;
  secrets: PersonSecretsPort;
}

export interface NewPerson {
  email: unknown;
  name?: unknown;
  initials?: unknown;
  username?: unknown;
}

/** What an invited person sets when they accept (`initials` default to those of the name). */
export interface InvitedProfile {
  name: unknown;
  username: unknown;
  initials?: unknown;
  password: unknown;
}

/** The password rules of every way a password is set; throws `invalid_parameter` naming `field`. */
export function checkedPassword(password: unknown, field = 'password'): string {
  if (typeof password !== 'string' || [...password].length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw invalidField(field, `Password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`);
  }
  return password;
}

export class PeopleCommands {
  private creations: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: PeopleDeps) {}

  /** A person who signs in with a password; returns the person and their API token. */
  async addPerson(input: NewPerson & { password: unknown }, meta: CommandMeta): Promise<{ person: Doc; apiToken: string }> {
    return this.create(input, checkedPassword(input.password), meta);
  }

  /** The person with this email, or a new one invited without a password (they get a token only). */
  async findOrInvite(input: NewPerson, meta: CommandMeta): Promise<Doc> {
    const existing = typeof input.email === 'string' ? await this.byEmail(input.email) : null;
    if (existing) return existing;
    return this.serially(async () => {
      const again = typeof input.email === 'string' ? await this.byEmail(input.email) : null;
      return again ?? (await this.createNow(input, null, meta)).person;
    });
  }

  async updatePerson(personId: number, request: Record<string, unknown>, meta: CommandMeta): Promise<Doc> {
    return this.serially(() => this.updateNow(personId, request, meta));
  }

  /**
   * The invited person named by `secret` sets name, username, initials and password; the secret is used
   * up. Returns the person and their API token; 404 `unfound_resource` when the secret no longer invites.
   */
  async acceptInvitation(secret: string, profile: InvitedProfile, meta: CommandMeta): Promise<{ person: Doc; apiToken: string }> {
    const password = checkedPassword(profile.password);
    return this.serially(async () => {
      const invitation = await this.deps.secrets.invitation(secret, meta.now);
      if (!invitation || (await this.deps.secrets.hasPassword(invitation.personId))) throw unfound();
      const personId = invitation.personId;
      const initials = profile.initials ?? (typeof profile.name === 'string' ? initialsOf(profile.name.trim()) : undefined);
      const person = await this.updateNow(personId, { name: profile.name, username: profile.username, initials }, { ...meta, actorId: personId });
      if (!(await this.deps.secrets.acceptInvitation(secret, password, meta.now))) throw unfound();
      return { person, apiToken: (await this.deps.secrets.apiToken(personId)) ?? (await this.deps.secrets.enrol(personId, null)) };
    });
  }

  /**
   * Replaces the person's password (their token is kept): the new one must follow the password rules,
   * then `confirmCurrent` (the throttled sign-in check of the current password, run by the API layer)
   * must pass; a refusal of either writes nothing.
   */
  async changePassword(personId: number, password: unknown, confirmCurrent: () => Promise<void>): Promise<void> {
    const checked = checkedPassword(password);
    await confirmCurrent();
    await this.deps.secrets.setPassword(personId, checked);
  }

  /** Adds people to the caller's known people. */
  async rememberPeople(personId: number, personIds: readonly number[], meta: CommandMeta): Promise<void> {
    if (personIds.length === 0) return;
    await this.deps.writer.execute(streams.person(personId), decideRememberPeople, { personIds }, meta);
  }

  async byEmail(email: string): Promise<Doc | null> {
    return this.deps.people.findOne({ email: email.trim().toLowerCase() });
  }

  private async updateNow(personId: number, request: Record<string, unknown>, meta: CommandMeta): Promise<Doc> {
    const taken = await this.takenIdentities(request['email'], request['username'], personId);
    return (await this.deps.writer.onStream(streams.person(personId), decideUpdatePerson, { request, taken }, meta)).doc;
  }

  private create(input: NewPerson, password: string | null, meta: CommandMeta) {
    return this.serially(() => this.createNow(input, password, meta));
  }

  private async createNow(input: NewPerson, password: string | null, meta: CommandMeta): Promise<{ person: Doc; apiToken: string }> {
    const personId = await this.deps.ids.next('person');
    // An invitee's username (and, when none is given, name) says nothing of the email: people who may
    // not see the email see `user<id>` rather than its local part.
    const handle = `user${personId}`;
    const person: NewPerson & { usernameBase?: string } = password === null ? { name: handle, ...definedOnly(input), usernameBase: handle } : input;
    const taken = await this.takenIdentities(person.email, person.username ?? person.usernameBase ?? person.email, null);
    // Validate before enrolling credentials: a rejected person leaves nothing behind.
    const command = { personId, ...person, taken };
    decideCreatePerson(command, emptyState(streams.person(personId)), { now: meta.now, actorId: meta.actorId, nextId: () => 0 });
    const apiToken = await this.deps.secrets.enrol(personId, password);
    const { doc } = await this.deps.writer.onStream(streams.person(personId), decideCreatePerson, command, meta);
    return { person: doc, apiToken };
  }

  /**
   * What other people use among the values this request could take: the email, and every username
   * starting with the requested one or the email's local part (so a free numbered variant can be chosen).
   */
  private async takenIdentities(email: unknown, usernameSource: unknown, exceptId: number | null): Promise<TakenIdentities> {
    const emails = new Set<string>();
    const usernames = new Set<string>();
    const others = (doc: Doc) => doc.id !== exceptId;
    if (typeof email === 'string') {
      const holder = await this.byEmail(email);
      if (holder && others(holder)) emails.add(String(holder['email']));
    }
    if (typeof usernameSource === 'string') {
      const base = usernameSource.split('@')[0]!.toLowerCase();
      const prefix = base.replace(/[^a-z0-9_.-]/g, '');
      const candidates = await this.deps.people.find({ username: { $regex: `^${escapeRegExp(prefix)}` } });
      for (const doc of candidates) if (others(doc)) usernames.add(String(doc['username']));
    }
    return { emails, usernames };
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.creations.then(work, work);
    this.creations = run.catch(() => undefined);
    return run;
  }
}

function definedOnly(input: NewPerson): NewPerson {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined && value !== null)) as NewPerson;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
