// The pages around the board: sign-in, the person's projects, the profile and an invitation.
import { useEffect, useState } from 'preact/hooks';
import { ApiClient, ApiError, basicCredentials, problemText } from './api';
import { moment } from './format';
import { LabelledInput } from './labelled-input';
import { navigate } from './routes';
import { useSession } from './session';
import type { Invitation, Me, Project } from './types';

/** Sign in with email (or username) and password (Basic on GET /me gives the token), or with a token. */
export function SignIn(props: { api: ApiClient; reason: string | null; onSignedIn(token: string, me: Me): void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const attempt = async (credentials: { authorization?: string; token?: string }) => {
    setBusy(true);
    setProblem(null);
    try {
      const answer = await props.api.get<Me>('/me', credentials);
      props.onSignedIn(answer.data.api_token, answer.data);
    } catch (error) {
      setProblem(error instanceof ApiError && (error.status === 403 || error.status === 401) ? `Those credentials were not accepted. ${error.hash.possible_fix ?? ''}` : problemText(error));
    }
    setBusy(false);
  };
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Storyline</h1>
      {props.reason ? <p role="status">{props.reason}</p> : null}
      {problem ? <p role="alert" class="problem">{problem}</p> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void attempt({ authorization: basicCredentials(login.trim(), password) });
        }}
      >
        <LabelledInput label="Email or username" name="login" autoComplete="username" required value={login} onValue={setLogin} />
        <LabelledInput label="Password" name="password" type="password" autoComplete="current-password" required value={password} onValue={setPassword} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <form
        class="token-sign-in"
        onSubmit={(event) => {
          event.preventDefault();
          void attempt({ token: token.trim() });
        }}
      >
        <LabelledInput label="Or paste your API token" name="token" autoComplete="off" spellcheck={false} required value={token} onValue={setToken} />
        <button type="submit" disabled={busy}>
          Sign in with the token
        </button>
      </form>
    </main>
  );
}

/** The person's projects with their current iteration and velocity, and a form to create one. */
export function Projects() {
  const { api, me } = useSession();
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [accountName, setAccountName] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Projects — Storyline';
    api
      .get<Project[]>('/projects', { query: { fields: 'id,name,version,current_iteration_number,current_velocity' } })
      .then((answer) => setProjects(answer.data))
      .catch((error) => setProblem(problemText(error)));
  }, []);
  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const body = { name: name.trim(), ...(accountName !== null && accountName.trim() !== '' ? { new_account_name: accountName.trim() } : {}) };
      const answer = await api.post<Project>('/projects', body);
      navigate({ page: 'project', projectId: answer.data.id });
    } catch (error) {
      // Someone in no account yet names one for the project (Tracker's "new account").
      if (error instanceof ApiError && (error.hash.validation_errors ?? []).some((item) => item.field === 'account_id') && accountName === null) {
        setAccountName(`${me.name}'s projects`);
        setProblem('You belong to no account yet: name one, and the project goes in it.');
      } else setProblem(problemText(error));
    }
    setBusy(false);
  };
  return (
    <main id="main" class="projects-page">
      <h1>Your projects</h1>
      {projects === null && !problem ? <p>Loading…</p> : null}
      {projects && projects.length === 0 ? <p class="empty">You are in no project yet. Create one below, or ask a project owner for an invitation.</p> : null}
      {projects && projects.length > 0 ? (
        <table class="project-table">
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Current iteration</th>
              <th scope="col">Velocity</th>
            </tr>
          </thead>
          <tbody>
            {projects.map((project) => (
              <tr key={project.id}>
                <td>
                  <a
                    href={`/n/projects/${project.id}`}
                    onClick={(event) => {
                      event.preventDefault();
                      navigate({ page: 'project', projectId: project.id });
                    }}
                  >
                    {project.name}
                  </a>
                </td>
                <td>{project.current_iteration_number}</td>
                <td>{project.current_velocity ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form class="create-project" onSubmit={create}>
        <h2>Create a project</h2>
        {problem ? <p role="alert" class="problem">{problem}</p> : null}
        <LabelledInput label="Project name" required maxLength={50} value={name} onValue={setName} />
        {accountName !== null ? (
          <LabelledInput label="Account name" required value={accountName} onValue={setAccountName} />
        ) : null}
        <button type="submit" disabled={busy}>
          Create project
        </button>
      </form>
    </main>
  );
}

/** The profile page the error hints point at: the API token (and a new one), password, name, initials, time zone. */
export function Profile() {
  const { api, me, updateMe } = useSession();
  const [shown, setShown] = useState(false);
  const [message, setMessage] = useState<{ kind: 'status' | 'alert'; text: string } | null>(null);
  const [name, setName] = useState(me.name);
  const [initials, setInitials] = useState(me.initials ?? '');
  const [username, setUsername] = useState(me.username ?? '');
  const [zone, setZone] = useState(me.time_zone?.olson_name ?? 'Etc/UTC');
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  useEffect(() => {
    document.title = 'Profile — Storyline';
  }, []);
  const zones = timeZones(zone);
  const tell = (kind: 'status' | 'alert', text: string) => setMessage({ kind, text });
  const saveProfile = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await api.put<Me>('/me', changedProfile(me, { name: name.trim(), initials: initials.trim(), username: username.trim(), time_zone: zone }));
      updateMe(answer.data);
      tell('status', 'Your profile was saved.');
    } catch (error) {
      tell('alert', problemText(error));
    }
  };
  const newToken = async () => {
    if (!confirm('Make a new API token? The current one stops working at once, in every script that uses it.')) return;
    try {
      const answer = await api.post<Me>('/me/api_token', {});
      updateMe(answer.data);
      setShown(true);
      tell('status', 'A new API token was made; the old one no longer works.');
    } catch (error) {
      tell('alert', problemText(error));
    }
  };
  const changePassword = async (event: Event) => {
    event.preventDefault();
    try {
      await api.put('/me/password', { current_password: current, password }, { checksPassword: true });
      setCurrent('');
      setPassword('');
      tell('status', 'Your password was changed.');
    } catch (error) {
      tell('alert', error instanceof ApiError && error.code === 'invalid_authentication' ? 'The current password is not right.' : problemText(error));
    }
  };
  return (
    <main id="main" class="profile-page">
      <h1>Profile</h1>
      {message ? (
        <p role={message.kind} class={message.kind === 'alert' ? 'problem' : 'ok'}>
          {message.text}
        </p>
      ) : null}
      <section>
        <h2>API token</h2>
        <p>Scripts and Tracker clients send it in the X-TrackerToken header.</p>
        <p>
          <code class="token" aria-label="Your API token">
            {shown ? me.api_token : '•'.repeat(32)}
          </code>{' '}
          <button type="button" onClick={() => setShown(!shown)}>
            {shown ? 'Hide token' : 'Show token'}
          </button>{' '}
          <button type="button" onClick={newToken}>
            Make a new token
          </button>
        </p>
      </section>
      <form onSubmit={saveProfile}>
        <h2>You</h2>
        <p>Email: {me.email}</p>
        <LabelledInput label="Name" required value={name} onValue={setName} />
        <LabelledInput label="Initials" value={initials} onValue={setInitials} />
        <LabelledInput label="Username" value={username} onValue={setUsername} />
        <label>
          Time zone
          <select value={zone} onChange={(event) => setZone((event.target as HTMLSelectElement).value)}>
            {zones.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Save profile</button>
      </form>
      <form onSubmit={changePassword}>
        <h2>Password</h2>
        <LabelledInput label="Current password" type="password" autoComplete="current-password" required value={current} onValue={setCurrent} />
        <LabelledInput label="New password" type="password" autoComplete="new-password" required value={password} onValue={setPassword} />
        <button type="submit">Change password</button>
      </form>
    </main>
  );
}

/** What the profile form changes: only those fields are sent (an unchanged empty username stays unset). */
export function changedProfile(me: Me, form: { name: string; initials: string; username: string; time_zone: string }): Partial<typeof form> {
  const before = { name: me.name, initials: me.initials ?? '', username: me.username ?? '', time_zone: me.time_zone?.olson_name ?? 'Etc/UTC' };
  return Object.fromEntries(Object.entries(form).filter(([field, value]) => before[field as keyof typeof before] !== value));
}

function timeZones(selected: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set(['Etc/UTC', selected, ...known])];
}

/** /invitations/{secret}: the invitee sets name, username and password, then lands on the project. */
export function InvitationPage(props: { api: ApiClient; secret: string; onSignedIn(token: string, me: Me, projectId: number): void }) {
  const [invitation, setInvitation] = useState<Invitation | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [username, setUsername] = useState('');
  const [initials, setInitials] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Invitation — Storyline';
    props.api
      .get<Invitation>(`/invitations/${encodeURIComponent(props.secret)}`, { token: '' })
      .then((answer) => setInvitation(answer.data))
      .catch((error) =>
        setProblem(error instanceof ApiError && error.code === 'unfound_resource' ? 'This invitation link is unknown, already used or expired. Ask the project owner for a new one.' : problemText(error)),
      );
  }, [props.secret]);
  const accept = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const body = { name: name.trim(), username: username.trim(), password, ...(initials.trim() ? { initials: initials.trim() } : {}) };
      const answer = await props.api.post<Me>(`/invitations/${encodeURIComponent(props.secret)}/accept`, body, { token: '' });
      props.onSignedIn(answer.data.api_token, answer.data, invitation!.project_id);
    } catch (error) {
      setProblem(problemText(error));
    }
    setBusy(false);
  };
  return (
    <main id="main" class="invitation-page">
      <h1>Join {invitation?.project_name ?? 'a project'} on Storyline</h1>
      {problem ? <p role="alert" class="problem">{problem}</p> : null}
      {invitation ? (
        <form onSubmit={accept}>
          <p>
            {invitation.inviter_name ?? 'A project owner'} invited {invitation.email}. This link works once, until {moment(invitation.expires_at)}.
          </p>
          <LabelledInput label="Your name" required autoComplete="name" value={name} onValue={setName} />
          <LabelledInput label="Username" required autoComplete="username" value={username} onValue={setUsername} />
          <LabelledInput label="Initials (optional)" value={initials} onValue={setInitials} />
          <LabelledInput label="Password" type="password" required autoComplete="new-password" value={password} onValue={setPassword} />
          <button type="submit" disabled={busy}>
            Join the project
          </button>
        </form>
      ) : null}
    </main>
  );
}
