// What runs before the app's code (a chunk of its own) has arrived: the API client with the stored token
// and, with a token, the first reads (the person, and the board when the address is a project's), so the
// server answers while the browser is still loading and running the rest of the code.
import { ApiClient } from './api';
import { prefetchBoard } from './board-store';
import { currentPlace } from './routes';
import { storedToken } from './session';
import type { Me } from './types';

export interface Boot {
  api: ApiClient;
  /** GET /me with the stored token, asked at once: the person, or null when it was refused or failed; null when no token is stored. */
  me: Promise<Me | null> | null;
  /** Names who is told that the session's token was refused (told at once when it was refused already). */
  onSignedOut(handler: () => void): void;
}

export function boot(): Boot {
  let handler: (() => void) | null = null;
  let refusedEarly = false;
  const api = new ApiClient(storedToken(), () => {
    if (handler) handler();
    else refusedEarly = true;
  });
  const opened = currentPlace();
  if (api.currentToken() && opened.page === 'project') prefetchBoard(api, opened.projectId);
  const me = api.currentToken()
    ? api.get<Me>('/me').then(
        (answer) => answer.data,
        () => null,
      )
    : null;
  return {
    api,
    me,
    onSignedOut(next) {
      handler = next;
      if (!refusedEarly) return;
      refusedEarly = false;
      next();
    },
  };
}
