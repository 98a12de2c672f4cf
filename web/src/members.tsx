// The project's members and, for its owners, inviting people: a new email becomes a membership
// (POST /memberships), then a one-time invitation link (POST .../memberships/{id}/invitation) that the
// board shows and the server mails when SMTP is configured. Someone who can already sign in needs no link.
import { useState } from 'preact/hooks';
import { ApiError, problemText } from './api';
import type { BoardStore } from './board-store';
import { moment } from './format';
import { LabelledInput } from './labelled-input';
import type { Invitation, Membership } from './types';

export function MembersPanel(props: { store: BoardStore; isOwner: boolean }) {
  const { store } = props;
  const members = store.data?.members ?? [];
  const [invitations, setInvitations] = useState<Record<number, Invitation | string>>({});
  const invite = async (membership: Membership) => {
    try {
      const answer = await store.api.post<Invitation>(`/projects/${store.projectId}/memberships/${membership.id}/invitation`, {});
      setInvitations((shown) => ({ ...shown, [membership.id]: answer.data }));
    } catch (error) {
      const text = error instanceof ApiError && error.code === 'invalid_parameter' ? `${membership.person.name} can already sign in.` : problemText(error);
      setInvitations((shown) => ({ ...shown, [membership.id]: text }));
    }
  };
  return (
    <div class="members">
      <ul class="member-list">
        {members.map((membership) => {
          const invitation = invitations[membership.id];
          return (
            <li key={membership.id}>
              <span class="member-name">
                {membership.person.name} {membership.person.initials ? `(${membership.person.initials})` : ''}
              </span>{' '}
              <span class="role">{membership.role}</span>
              {membership.person.email ? <span class="email"> {membership.person.email}</span> : null}
              {props.isOwner ? (
                <button type="button" class="link" onClick={() => invite(membership)}>
                  Invitation link for {membership.person.name}
                </button>
              ) : null}
              {typeof invitation === 'string' ? <p role="status">{invitation}</p> : invitation ? <InvitationLink invitation={invitation} /> : null}
            </li>
          );
        })}
      </ul>
      {props.isOwner ? <InviteForm store={store} onInvited={(membership, invitation) => setInvitations((shown) => ({ ...shown, [membership.id]: invitation }))} /> : null}
    </div>
  );
}

function InvitationLink(props: { invitation: Invitation }) {
  const { invitation } = props;
  return (
    <div class="invitation-link" role="status">
      <p>
        Send this one-time link to {invitation.email} (valid until {moment(invitation.expires_at)}){invitation.emailed ? '; it was also emailed to them' : ''}:
      </p>
      <input readOnly value={invitation.url ?? ''} aria-label={`Invitation link for ${invitation.email}`} onFocus={(event) => (event.target as HTMLInputElement).select()} />
    </div>
  );
}

function InviteForm(props: { store: BoardStore; onInvited(membership: Membership, invitation: Invitation | string): void }) {
  const { store } = props;
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [initials, setInitials] = useState('');
  const [role, setRole] = useState('member');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const body = { email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}), ...(initials.trim() ? { initials: initials.trim() } : {}) };
      const created = await store.write((knownVersion) => store.api.post<Membership>(`/projects/${store.projectId}/memberships`, body, { knownVersion }));
      const membership = created.data;
      try {
        const invitation = await store.api.post<Invitation>(`/projects/${store.projectId}/memberships/${membership.id}/invitation`, {});
        props.onInvited(membership, invitation.data);
      } catch (error) {
        props.onInvited(membership, error instanceof ApiError && error.code === 'invalid_parameter' ? `${membership.person.name} can already sign in: they see the project now.` : problemText(error));
      }
      setEmail('');
      setName('');
      setInitials('');
    } catch (error) {
      setProblem(problemText(error));
    }
    setBusy(false);
  };
  return (
    <form class="invite-form" onSubmit={submit}>
      <h3>Invite someone</h3>
      <LabelledInput label="Email" type="email" required value={email} onValue={setEmail} />
      <LabelledInput label="Name (for someone new)" value={name} onValue={setName} />
      <LabelledInput label="Initials" value={initials} onValue={setInitials} />
      <label>
        Role
        <select value={role} onChange={(event) => setRole((event.target as HTMLSelectElement).value)}>
          <option value="member">Member</option>
          <option value="owner">Owner</option>
          <option value="viewer">Viewer</option>
        </select>
      </label>
      {problem ? <p role="alert">{problem}</p> : null}
      <button type="submit" disabled={busy}>
        Invite
      </button>
    </form>
  );
}
