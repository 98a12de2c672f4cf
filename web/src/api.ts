// The board's only way to the server: the public /services/v5 API with the person's token in
// `X-TrackerToken`. Every write names the project version the board last saw
// (`X-Tracker-Warn-Unless-Project-Version-Is`), so the answer says whether someone changed the project
// meanwhile. Error hashes become ApiError; bad or missing credentials call `onSignedOut`.

export const API = '/services/v5';

export interface ValidationProblem {
  field: string;
  problem: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly hash: { error?: string; general_problem?: string; possible_fix?: string; requirement?: string; validation_errors?: ValidationProblem[] },
  ) {
    super(hash.general_problem ?? hash.requirement ?? hash.error ?? `The server answered ${status}`);
  }

  /** What to tell a person: the general problem and each field's problem. */
  describe(): string {
    const problems = (this.hash.validation_errors ?? []).map((item) => `${item.field}: ${item.problem}`);
    const lead = this.hash.general_problem ?? this.hash.requirement ?? this.hash.error ?? this.message;
    return [lead, ...problems.filter((problem) => !lead.includes(problem.split(': ').slice(1).join(': ')))].join(' — ');
  }
}

/** A network failure (server unreachable): not an answer. */
export class OfflineError extends Error {}

export interface Answer<T> {
  data: T;
  status: number;
  /** X-Tracker-Project-Version, when the answer is about one project. */
  version: number | null;
  /** X-Tracker-Warning-Project-Was-Stale: the project changed since the version the request named. */
  stale: boolean;
  total: number | null;
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** The project version the caller knows: sent as X-Tracker-Warn-Unless-Project-Version-Is. */
  knownVersion?: number | null;
  /** Credentials other than the session token (sign-in). */
  authorization?: string;
  token?: string;
  /** The request carries a password to check (a password change): a refusal is about it, not the session. */
  checksPassword?: boolean;
}

export class ApiClient {
  constructor(
    private token: string | null,
    private readonly onSignedOut: () => void,
  ) {}

  setToken(token: string | null): void {
    this.token = token;
  }

  currentToken(): string | null {
    return this.token;
  }

  get<T>(path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    return this.request<T>('GET', path, options);
  }

  put<T>(path: string, body: unknown, options: RequestOptions = {}): Promise<Answer<T>> {
    return this.request<T>('PUT', path, { ...options, body });
  }

  post<T>(path: string, body: unknown, options: RequestOptions = {}): Promise<Answer<T>> {
    return this.request<T>('POST', path, { ...options, body });
  }

  delete(path: string, options: RequestOptions = {}): Promise<Answer<null>> {
    return this.request<null>('DELETE', path, options);
  }

  /** POST /projects/{id}/uploads: the file as multipart part `file`; answers the file_attachment. */
  async upload<T>(projectId: number, file: File, knownVersion: number | null): Promise<Answer<T>> {
    const form = new FormData();
    form.append('file', file, file.name);
    return this.send<T>('POST', `/projects/${projectId}/uploads`, { knownVersion }, form);
  }

  /** A download (file attachment) fetched with the token, as a blob: the token never goes in a URL. */
  async blob(url: string): Promise<Blob> {
    const response = await this.fetch(sameOrigin(url), { headers: this.headers({}) });
    if (!response.ok) await this.fail(response);
    return response.blob();
  }

  request<T>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    return this.send<T>(method, path, options, options.body === undefined ? undefined : JSON.stringify(options.body));
  }

  /** Headers every request carries: the token (or given credentials) and the version known. */
  headers(options: RequestOptions): Record<string, string> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = options.token ?? this.token;
    if (options.authorization) headers['Authorization'] = options.authorization;
    else if (token) headers['X-TrackerToken'] = token;
    if (options.knownVersion !== undefined && options.knownVersion !== null) headers['X-Tracker-Warn-Unless-Project-Version-Is'] = String(options.knownVersion);
    return headers;
  }

  private async send<T>(method: string, path: string, options: RequestOptions, body: string | FormData | undefined): Promise<Answer<T>> {
    const headers = this.headers(options);
    if (typeof body === 'string') headers['Content-Type'] = 'application/json';
    const response = await this.fetch(`${API}${path}${queryString(options.query)}`, { method, headers, ...(body === undefined ? {} : { body }) });
    if (!response.ok) await this.fail(response, options);
    const text = response.status === 204 ? '' : await response.text();
    const number = (name: string) => {
      const value = response.headers.get(name);
      return value === null ? null : Number(value);
    };
    return {
      data: (text === '' ? null : JSON.parse(text)) as T,
      status: response.status,
      version: number('X-Tracker-Project-Version'),
      stale: response.headers.get('X-Tracker-Warning-Project-Was-Stale') === 'true',
      total: number('X-Tracker-Pagination-Total'),
    };
  }

  private async fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, credentials: 'omit', cache: 'no-store' });
    } catch {
      throw new OfflineError('The server cannot be reached. Check the connection and try again.');
    }
  }

  private async fail(response: Response, options: RequestOptions = {}): Promise<never> {
    let hash: Record<string, unknown> = {};
    try {
      hash = (await response.json()) as Record<string, unknown>;
    } catch {
      hash = { error: `The server answered ${response.status}.` };
    }
    const code = typeof hash['code'] === 'string' ? hash['code'] : 'unknown';
    const error = new ApiError(response.status, code, hash as ApiError['hash']);
    // Only the session's own token failing signs the person out (not a sign-in attempt, a public page or a
    // password being checked).
    const withSessionToken = options.authorization === undefined && options.token === undefined && options.checksPassword !== true && this.token !== null;
    if (withSessionToken && (response.status === 401 || code === 'invalid_authentication')) this.onSignedOut();
    throw error;
  }
}

export function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The path of a URL the API gave (its host is the configured site address): fetched from this origin. */
export function sameOrigin(url: string): string {
  try {
    const parsed = new URL(url, window.location.origin);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

/** HTTP Basic credentials for GET /me (UTF-8 safe). */
export function basicCredentials(login: string, password: string): string {
  const bytes = new TextEncoder().encode(`${login}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** Text for any failure a request can end in. */
export function problemText(error: unknown): string {
  if (error instanceof ApiError) return error.describe();
  if (error instanceof Error) return error.message;
  return String(error);
}
