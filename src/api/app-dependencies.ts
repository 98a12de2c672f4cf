// What the HTTP app needs from the rest of the system, as interfaces the composition root implements.

import type { LoginThrottleOptions } from './login-throttle.js';
import type { Actor, Authenticator } from '../ports/authenticator.js';
import type { ViewRecorder } from '../ports/project-views.js';
import type { Doc } from '../ports/read-store.js';
import type { AsOfReadScope, ProjectHistory } from '../queries/time-travel.js';
import type { ResourceTypeRegistry } from './resource-type.js';
import type { ProjectRole, RouteDefinition } from './route-table.js';

export type { Authenticator };

export interface ResolvedProject {
  project: Doc;
  /** The caller's active role, null when not a member (or anonymous). */
  role: ProjectRole | null;
  public: boolean;
}

export interface ProjectAccessResolver {
  /** The project and the caller's role in it; null when no such project exists (or it was deleted). */
  resolve(projectId: number, actor: Actor | null): Promise<ResolvedProject | null>;
}

export interface ApiLog {
  error(message: string, details?: Record<string, unknown>): void;
  /** One access-log line per answered request. */
  info(message: string, details?: Record<string, unknown>): void;
  /** Events worth an operator's eye that are not faults (failed sign-ins); never given a secret. */
  warn(message: string, details?: Record<string, unknown>): void;
}

export interface ApiConfig {
  /** Public address of the site (no trailing slash): error hints point at its pages (`/profile`). */
  siteUrl: string;
  /** Status of a successful create: the real service answered 200; 201 is the announced change. */
  createdStatus: 200 | 201;
  /** Largest accepted request body, in bytes (413 `request_entity_too_large` above). */
  maxBodyBytes: number;
  /** Largest body of a route reading its body raw (uploads); `maxBodyBytes` when not set. */
  maxRawBodyBytes?: number;
  /** Entries of the response byte cache (0 disables it). */
  responseCacheEntries: number;
  /** Bytes the response cache may hold (default 16 MiB; 0 disables it). */
  responseCacheBytes?: number;
  /** Sent as the deprecation header and envelope member when set. */
  deprecationWarning?: string;
  /** Planned maintenance window (ISO 8601), sent as headers and envelope member when set. */
  downtime?: { start: string; finish: string };
  /** Reverse proxies whose `X-Forwarded-For` names the client (client-address.ts); none when absent. */
  trustedProxies?: readonly string[];
}

export interface AppDependencies {
  routes: readonly RouteDefinition[];
  resources: ResourceTypeRegistry;
  auth: Authenticator;
  projects: ProjectAccessResolver;
  /** Current version of a project (its event count), null when it does not exist. */
  projectVersion(projectId: number): Promise<number | null>;
  config: ApiConfig;
  log: ApiLog;
  /** Request clock, ms since the epoch (injected for tests); defaults to Date.now. */
  clock?: () => number;
  /** Brake on password sign-ins; defaults to DEFAULT_LOGIN_THROTTLE on the request clock. */
  loginThrottle?: LoginThrottleOptions;
  /**
   * `as_of_version` / `as_of` on project-scoped GETs: the project's read models at a past version and
   * the request scope that serves them to the routes' `read` (absent: the parameters are refused).
   */
  timeTravel?: { scope: AsOfReadScope; history: ProjectHistory };
  /**
   * A failure thrown while answering, as the client should get it: the composition root maps a failure
   * of the storage no adapter translated (a damaged file, a failing disk) to its catalogued error, and
   * records it; anything else unchanged. Absent: failures are taken as thrown.
   */
  storageFailure?(thrown: unknown): unknown;
  /** Told when a person views a project (routes declaring `countsAsView`); absent: views are not kept. */
  projectViews?: ViewRecorder;
  /**
   * A number that moves when something cached answers show changes without a project version moving
   * (thumbnails made behind the log); part of every byte-cache key. Absent: nothing does.
   */
  unversionedStamp?: () => number;
}

/** The response cache's byte budget when none is configured. */
export const DEFAULT_RESPONSE_CACHE_BYTES = 16 * 1024 * 1024;

export const defaultApiConfig: ApiConfig = {
  siteUrl: 'http://localhost:3000',
  createdStatus: 200,
  maxBodyBytes: 1024 * 1024,
  responseCacheEntries: 2000,
  responseCacheBytes: DEFAULT_RESPONSE_CACHE_BYTES,
};
