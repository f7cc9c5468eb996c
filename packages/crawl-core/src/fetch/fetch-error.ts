/**
 * Fetch errors carry a stable code and say what the crawl loop should do about them: retry soon,
 * back off the host, or give up on the URL. Callers branch on `code`, never on the message.
 */
export type FetchErrorCode =
  | 'dns_not_found'
  | 'dns_failure'
  | 'private_address'
  | 'invalid_address'
  | 'connect_timeout'
  | 'connect_refused'
  | 'first_byte_timeout'
  | 'total_timeout'
  | 'headers_too_large'
  | 'network'
  | 'bad_url';

export type FetchErrorAction = 'retry' | 'backoff' | 'give_up';

const ACTIONS: Record<FetchErrorCode, FetchErrorAction> = {
  dns_not_found: 'give_up',
  dns_failure: 'backoff',
  private_address: 'give_up',
  invalid_address: 'give_up',
  connect_timeout: 'backoff',
  connect_refused: 'backoff',
  first_byte_timeout: 'backoff',
  total_timeout: 'backoff',
  headers_too_large: 'give_up',
  network: 'retry',
  bad_url: 'give_up',
};

export class FetchError extends Error {
  readonly action: FetchErrorAction;
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.action = ACTIONS[code];
  }
}
