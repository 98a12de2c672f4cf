// Structured log lines (one JSON object per line on stderr). Callers never pass secrets: tokens and
// passwords have no field here, and request logging records paths without query strings.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Log {
  debug(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLog(minimum: LogLevel = 'info', write: (line: string) => void = (line) => process.stderr.write(line)): Log {
  const emit = (level: LogLevel) => (message: string, details?: Record<string, unknown>) => {
    if (ORDER[level] < ORDER[minimum]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...details })}\n`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** A log that drops everything (tests, benchmarks). */
export const silentLog: Log = createLog('error', () => {});
