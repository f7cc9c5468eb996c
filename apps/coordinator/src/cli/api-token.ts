import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '@crawler/domain/config';

/** Where `npm start` keeps the generated admin credentials (mode 0600). */
export function adminCredentialsPath(config: Pick<Config, 'DATA_DIR'>): string {
  return join(config.DATA_DIR, 'admin.json');
}

/**
 * The token the CLI sends: CRAWLER_API_TOKEN, or else the admin token `npm start` wrote to
 * DATA_DIR/admin.json on this machine. Undefined when neither exists (the API will say 401).
 */
export function resolveApiToken(
  config: Pick<Config, 'CRAWLER_API_TOKEN' | 'DATA_DIR'>,
): { token: string; from: string } | undefined {
  if (config.CRAWLER_API_TOKEN)
    return { token: config.CRAWLER_API_TOKEN, from: 'CRAWLER_API_TOKEN' };
  const path = adminCredentialsPath(config);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as { token?: unknown };
    return typeof parsed.token === 'string' ? { token: parsed.token, from: path } : undefined;
  } catch {
    return undefined;
  }
}
