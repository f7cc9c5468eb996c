import pino from 'pino';

export type Logger = pino.Logger;

/** Structured logs (JSON lines on stderr, so stdout stays free for command output). */
export function createLogger(name: string, level: string): Logger {
  return pino({ name, level }, pino.destination(2));
}
