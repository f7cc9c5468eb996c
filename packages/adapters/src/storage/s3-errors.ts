import type { ClassifiedError } from './retry';
import { StorageError, type StorageErrorCode } from './storage-errors';

/** S3 error codes that mean "slow down" or a passing server fault: retried. */
const TRANSIENT_NAMES = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'BandwidthLimitExceeded',
  'ProvisionedThroughputExceededException',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalError',
  'ServiceUnavailable',
  'TimeoutError',
]);

/** Socket-level failures: the request may not have reached the service; retried. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Refused credentials or permissions: retrying will not help. */
const DENIED_NAMES = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'AllAccessDisabled',
  'AccountProblem',
  'CredentialsProviderError',
]);

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && name in value
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/** HTTP status of an AWS SDK service error (`$metadata.httpStatusCode`), if any. */
function httpStatusOf(err: unknown): number | undefined {
  const status = field(field(err, '$metadata'), 'httpStatusCode');
  return typeof status === 'number' ? status : undefined;
}

/** `code` of the error or of its `cause` (the SDK sometimes wraps socket errors). */
function networkCodeOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e !== undefined && depth < 3; e = field(e, 'cause'), depth++) {
    const code = field(e, 'code');
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  }
  return undefined;
}

/**
 * Maps an AWS SDK (or socket) error from a request about `what` to a StorageError with a stable
 * code, and says whether to retry: 5xx, 429, throttling codes and network failures retry as
 * STORAGE_UNAVAILABLE; 404 is STORAGE_NOT_FOUND (NoSuchBucket: STORAGE_NO_BUCKET); 416 and
 * InvalidRange STORAGE_BAD_RANGE; 403 and credential errors STORAGE_DENIED; the rest
 * STORAGE_FAILED.
 */
export function classifyS3Error(err: unknown, what: string): ClassifiedError {
  if (err instanceof StorageError) return { error: err, retryable: false };
  const name = err instanceof Error ? err.name : '';
  const status = httpStatusOf(err);
  const network = networkCodeOf(err);
  let code: StorageErrorCode;
  let retryable = false;
  if (name === 'NoSuchBucket') {
    code = 'STORAGE_NO_BUCKET';
  } else if (name === 'NoSuchUpload') {
    // A multipart upload aborted (or completed) behind our back: the upload failed as a whole.
    code = 'STORAGE_FAILED';
  } else if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) {
    code = 'STORAGE_NOT_FOUND';
  } else if (name === 'InvalidRange' || status === 416) {
    code = 'STORAGE_BAD_RANGE';
  } else if (DENIED_NAMES.has(name) || status === 401 || status === 403) {
    code = 'STORAGE_DENIED';
  } else if (
    TRANSIENT_NAMES.has(name) ||
    network !== undefined ||
    status === 429 ||
    (status !== undefined && status >= 500)
  ) {
    code = 'STORAGE_UNAVAILABLE';
    retryable = true;
  } else {
    code = 'STORAGE_FAILED';
  }
  const detail = [
    name && name !== 'Error' ? name : undefined,
    status !== undefined ? `HTTP ${status}` : undefined,
    network,
    err instanceof Error ? err.message.split('\n')[0] : String(err),
  ]
    .filter((part) => part !== undefined && part !== '')
    .join(', ');
  return { error: new StorageError(code, `${what}: ${detail}`, { cause: err }), retryable };
}
