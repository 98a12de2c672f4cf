// Structured log lines (one JSON object per line on stderr: level, time, the details, message), written
// by pino. Callers never pass secrets (request logging records paths without query strings);
// fields that would hold one are redacted all the same. Lines reach stderr synchronously
// (pino.destination sync), so a crash right after a line does not lose it.
import { pino, type DestinationStream } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Log {
  debug(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

/** Detail fields that would carry a secret (top level only: wildcard paths cost several times a line). */
const SECRET_FIELDS = ['token', 'api_token', 'password', 'secret', 'invitation_secret', 'authorization'];

const LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error'];

export function createLog(minimum: LogLevel = 'info', write?: (line: string) => void): Log {
  const destination: DestinationStream = write ? { write } : pino.destination({ dest: 2, sync: true });
  const logger = pino(
    {
      // a level name it does not know (STORYLINE_LOG_LEVEL mistyped) logs everything, as before pino
      level: LEVELS.includes(minimum) ? minimum : 'debug',
      base: undefined,
      messageKey: 'message',
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: SECRET_FIELDS, censor: '[redacted]' },
    },
    destination,
  );
  const emit = (level: LogLevel) => (message: string, details?: Record<string, unknown>) => {
    if (details) logger[level](details, message);
    else logger[level](message);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** A log that drops everything (tests, benchmarks). */
export const silentLog: Log = createLog('error', () => {});
