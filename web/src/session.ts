// The signed-in person's token lives in sessionStorage (this tab only, gone when it closes), never in a
// cookie or a URL; where sessionStorage is unavailable it lives in memory only.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from './api';
import type { Me } from './types';

const KEY = 'storyline.token';
let memoryToken: string | null = null;

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return memoryToken;
  }
}

export function storeToken(token: string | null): void {
  memoryToken = token;
  try {
    if (token === null) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, token);
  } catch {
    // memory only
  }
}

export interface Session {
  api: ApiClient;
  me: Me;
  /** Replaces the person's data (a profile change) and, when given, the token. */
  updateMe(me: Me): void;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
