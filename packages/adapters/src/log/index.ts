import pino from 'pino';

export type Logger = pino.Logger;

/** Structured logs (JSON lines on stderr, so stdout stays free for command output). */
export function createLogger(name: string, level: string): Logger {
  return pino({ name, level }, pino.destination(2));
}

/** A connection URL safe to print: its password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
