// The board's places, as the server serves them (BOARD-CONTRACT: the API's `url` attributes point at
// /n/projects/{id}, /story/show/{id} and /epic/show/{id}) and the history of the browser tab.

export type Place =
  | { page: 'projects' }
  | { page: 'profile' }
  | { page: 'invitation'; secret: string }
  | { page: 'project'; projectId: number }
  /** `projectId`: known to the board that opens it (an address alone names only the story). */
  | { page: 'story'; storyId: number; projectId?: number }
  | { page: 'epic'; epicId: number; projectId?: number }
  | { page: 'unknown'; path: string };

export function placeOf(pathname: string): Place {
  const parts = pathname.split('/').filter((part) => part !== '');
  const id = (text: string | undefined) => (text !== undefined && /^[0-9]{1,15}$/.test(text) ? Number(text) : null);
  if (parts.length === 0) return { page: 'projects' };
  if (parts.length === 1 && parts[0] === 'profile') return { page: 'profile' };
  if (parts.length === 2 && parts[0] === 'invitations') return { page: 'invitation', secret: decodeURIComponent(parts[1]!) };
  if (parts.length === 3 && parts[0] === 'n' && parts[1] === 'projects' && id(parts[2]) !== null) return { page: 'project', projectId: id(parts[2])! };
  if (parts.length === 3 && parts[0] === 'story' && parts[1] === 'show' && id(parts[2]) !== null) return { page: 'story', storyId: id(parts[2])! };
  if (parts.length === 3 && parts[0] === 'epic' && parts[1] === 'show' && id(parts[2]) !== null) return { page: 'epic', epicId: id(parts[2])! };
  return { page: 'unknown', path: pathname };
}

export function pathOf(place: Place): string {
  switch (place.page) {
    case 'projects':
      return '/';
    case 'profile':
      return '/profile';
    case 'invitation':
      return `/invitations/${encodeURIComponent(place.secret)}`;
    case 'project':
      return `/n/projects/${place.projectId}`;
    case 'story':
      return `/story/show/${place.storyId}`;
    case 'epic':
      return `/epic/show/${place.epicId}`;
    case 'unknown':
      return place.path;
  }
}

type Listener = (place: Place) => void;
const listeners = new Set<Listener>();

export function currentPlace(): Place {
  return placeOf(window.location.pathname);
}

/** Goes to a place (a new history entry, or replacing the current one). */
export function navigate(place: Place, replace = false): void {
  const path = pathOf(place);
  if (path !== window.location.pathname) {
    if (replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
  }
  for (const listener of listeners) listener(place);
}

export function onPlaceChange(listener: Listener): () => void {
  listeners.add(listener);
  const popped = () => listener(currentPlace());
  window.addEventListener('popstate', popped);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', popped);
  };
}
