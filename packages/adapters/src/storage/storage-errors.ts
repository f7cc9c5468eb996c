import { CodedError } from '@crawler/domain/errors';

/** Stable codes of {@link StorageError}: branch on these, never on the message. */
export type StorageErrorCode =
  /** openObjectStore options failed validation. */
  | 'STORAGE_BAD_OPTIONS'
  /** A key or list prefix is not allowed (see `validateKey`). */
  | 'STORAGE_BAD_KEY'
  /** A range is invalid (negative, empty, fractional) or reaches past the end of the object. */
  | 'STORAGE_BAD_RANGE'
  /** The local file given to `putFile` cannot be read (missing, not a regular file, no access). */
  | 'STORAGE_BAD_SOURCE'
  /** No object has this key. */
  | 'STORAGE_NOT_FOUND'
  /** The configured bucket does not exist (a configuration error, not a missing object). */
  | 'STORAGE_NO_BUCKET'
  /**
   * Local store only: the key needs a folder where an object is stored, or names a folder that
   * holds objects (`a` and `a/b` cannot both exist on a file system; they can on S3).
   */
  | 'STORAGE_KEY_CONFLICT'
  /** Credentials were refused or lack permission (S3 403, local EACCES/EPERM). Not retried. */
  | 'STORAGE_DENIED'
  /**
   * The backend is unreachable or kept failing with 5xx/throttling through every retry.
   * Transient: the same call may succeed later.
   */
  | 'STORAGE_UNAVAILABLE'
  /** Anything else (disk full, an unexpected reply, a source file that changed while uploading). */
  | 'STORAGE_FAILED';

/** The one error type of the object store; the backend's error, if any, is the `cause`. */
export class StorageError extends CodedError<StorageErrorCode> {
  override readonly name = 'StorageError';

  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, { STORAGE_UNAVAILABLE: 'backoff', STORAGE_FAILED: 'retry' }, options);
  }
}
