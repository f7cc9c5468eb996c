import { CrawlerError, type RetryClass } from '@crawler/domain/errors';

/**
 * Fetch errors carry a stable code and say what the crawl loop should do about them: retry soon,
 * back off the host, or give up on the URL. Callers branch on `reason` (these values, which
 * telemetry records as `error_code`), `code` or `retry`, never on the message.
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
  /** The server's certificate was refused (chain, name, dates) or the TLS handshake failed. */
  | 'tls_error'
  | 'network'
  | 'bad_url'
  /** Abandoned by the agent's drain (AGENT_DRAIN_GRACE_MS): not the server's doing. */
  | 'drain_cut';

const RETRY: Record<FetchErrorCode, RetryClass> = {
  dns_not_found: 'give_up',
  dns_failure: 'backoff',
  private_address: 'give_up',
  invalid_address: 'give_up',
  connect_timeout: 'backoff',
  connect_refused: 'backoff',
  first_byte_timeout: 'backoff',
  total_timeout: 'backoff',
  headers_too_large: 'give_up',
  tls_error: 'backoff',
  network: 'retry',
  bad_url: 'give_up',
  drain_cut: 'retry',
};

export class FetchError extends CrawlerError {
  /** `reason` in UPPER_SNAKE_CASE: `FETCH_DNS_NOT_FOUND`, … */
  readonly code: `FETCH_${Uppercase<FetchErrorCode>}`;
  readonly retry: RetryClass;
  constructor(
    readonly reason: FetchErrorCode,
    message: string,
  ) {
    super(`${reason}: ${message}`);
    this.code = `FETCH_${reason.toUpperCase() as Uppercase<FetchErrorCode>}`;
    this.retry = RETRY[reason];
  }
}
