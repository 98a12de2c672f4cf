// The app: who is signed in, where the tab is, and the header around every page. A story or epic
// address (/story/show/{id}, /epic/show/{id}) opens its project's board with it open; the project is
// asked of the API when the address alone names only the story.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { problemText } from './api';
import { Board } from './board';
import type { Boot } from './boot';
import { NotificationsBell } from './notifications';
import { InvitationPage, Profile, Projects, SignIn } from './pages';
import { currentPlace, navigate, onPlaceChange, type Place } from './routes';
import { SessionContext, storeToken, useSession, type Session } from './session';
import type { Me } from './types';

/** Renders the app in place of the page's loading note. */
export function mountApp(started: Boot): void {
  const root = document.getElementById('app')!;
  root.textContent = '';
  render(<App boot={started} />, root);
}

export function App(props: { boot: Boot }) {
  const { api } = props.boot;
  const [place, setPlace] = useState<Place>(currentPlace);
  const [me, setMe] = useState<Me | null>(null);
  const [signInReason, setSignInReason] = useState<string | null>(null);
  const [checking, setChecking] = useState(() => props.boot.me !== null);
  useEffect(() => onPlaceChange(setPlace), []);
  useEffect(() => {
    props.boot.onSignedOut(() => {
      storeToken(null);
      api.setToken(null);
      setMe(null);
      setSignInReason('Your session ended (the API token was refused): sign in again.');
    });
    // The board address opened with a token: boot.ts asked for the person (and the board) already.
    props.boot.me
      ?.then((person) => {
        if (person) setMe(person);
      })
      .finally(() => setChecking(false));
  }, []);

  const signedIn = (token: string, person: Me) => {
    storeToken(token);
    api.setToken(token);
    setSignInReason(null);
    setMe(person);
  };

  if (place.page === 'invitation' && !me) {
    return (
      <InvitationPage
        api={api}
        secret={place.secret}
        onSignedIn={(token, person, projectId) => {
          signedIn(token, person);
          navigate({ page: 'project', projectId }, true);
        }}
      />
    );
  }
  if (checking) return <p class="loading">Loading…</p>;
  if (!me) return <SignIn api={api} reason={signInReason} onSignedIn={signedIn} />;

  const session: Session = {
    api,
    me,
    updateMe(next) {
      if (next.api_token && next.api_token !== api.currentToken()) {
        storeToken(next.api_token);
        api.setToken(next.api_token);
      }
      setMe(next);
    },
    signOut() {
      storeToken(null);
      api.setToken(null);
      setMe(null);
      setSignInReason('You signed out.');
      navigate({ page: 'projects' });
    },
  };
  return (
    <SessionContext.Provider value={session}>
      <Shell place={place} />
    </SessionContext.Provider>
  );
}

function Shell(props: { place: Place }) {
  const { place } = props;
  const [search, setSearch] = useState<{ query: string; serial: number } | null>(null);
  const projectId = useProjectOf(place);
  const boardPlace = place.page === 'project' || place.page === 'story' || place.page === 'epic';
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to the content
      </a>
      <header class="app-header">
        <a
          class="brand"
          href="/"
          onClick={(event) => {
            event.preventDefault();
            navigate({ page: 'projects' });
          }}
        >
          Storyline
        </a>
        {boardPlace && projectId.id !== null ? <SearchForm onSearch={(query) => setSearch({ query, serial: (search?.serial ?? 0) + 1 })} /> : null}
        <NotificationsBell />
        <ProfileLinks />
      </header>
      {place.page === 'projects' ? <Projects /> : null}
      {place.page === 'profile' ? <Profile /> : null}
      {place.page === 'invitation' ? <SignedInInvitation /> : null}
      {place.page === 'unknown' ? (
        <main id="main">
          <h1>Nothing here</h1>
          <p>The board has no page at {place.path}.</p>
        </main>
      ) : null}
      {boardPlace && projectId.problem ? (
        <main id="main">
          <p role="alert">{projectId.problem}</p>
        </main>
      ) : null}
      {boardPlace && projectId.id !== null ? (
        <Board
          key={projectId.id}
          projectId={projectId.id}
          openStoryId={place.page === 'story' ? place.storyId : null}
          openEpicId={place.page === 'epic' ? place.epicId : null}
          search={search}
        />
      ) : null}
    </>
  );
}

function SignedInInvitation() {
  return (
    <main id="main">
      <h1>Invitation</h1>
      <p>You are signed in already: sign out first to accept an invitation for someone else.</p>
    </main>
  );
}

function ProfileLinks() {
  const session = useSession();
  return (
    <nav class="account" aria-label="Account">
      <a
        href="/profile"
        onClick={(event) => {
          event.preventDefault();
          navigate({ page: 'profile' });
        }}
      >
        {session.me.name}
      </a>
      <button type="button" onClick={() => session.signOut()}>
        Sign out
      </button>
    </nav>
  );
}

function SearchForm(props: { onSearch(query: string): void }) {
  const [query, setQuery] = useState('');
  return (
    <form
      class="search-form"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        if (query.trim() !== '') props.onSearch(query.trim());
      }}
    >
      <label for="search-query" class="visually-hidden">
        Search stories
      </label>
      <input id="search-query" type="search" placeholder="Search (e.g. label:ops state:started)" value={query} onInput={(event) => setQuery((event.target as HTMLInputElement).value)} />
      <button type="submit">Search</button>
    </form>
  );
}

/** The project of the place: given, remembered, or asked of the API for a story or epic address. */
function useProjectOf(place: Place): { id: number | null; problem: string | null } {
  const session = useSession();
  const [known, setKnown] = useState<{ key: string; id: number | null; problem: string | null }>({ key: '', id: null, problem: null });
  const key = place.page === 'story' ? `story:${place.storyId}` : place.page === 'epic' ? `epic:${place.epicId}` : '';
  const given = place.page === 'project' ? place.projectId : place.page === 'story' || place.page === 'epic' ? (place.projectId ?? null) : null;
  useEffect(() => {
    if (given !== null || key === '' || known.key === key) return;
    const path = place.page === 'story' ? `/stories/${place.storyId}` : `/epics/${(place as { epicId: number }).epicId}`;
    session.api
      .get<{ project_id: number }>(path, { query: { fields: 'project_id' } })
      .then((answer) => setKnown({ key, id: answer.data.project_id, problem: null }))
      .catch((error) => setKnown({ key, id: null, problem: problemText(error) }));
  }, [key, given]);
  if (given !== null) return { id: given, problem: null };
  if (known.key === key) return { id: known.id, problem: known.problem };
  return { id: null, problem: null };
}
