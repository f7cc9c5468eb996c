import { CodedError } from '@crawler/domain/errors';

/** Stable codes of {@link WarcError}: branch on these, never on the message. */
export type WarcErrorCode =
  /** Options failed validation. */
  | 'WARC_BAD_OPTIONS'
  /** The writer was closed; nothing more can be written. */
  | 'WARC_WRITER_CLOSED'
  /**
   * A write failed (disk full, I/O error): nothing of the record was kept. The file is closed
   * at its last whole record and the writer recovers on a new file (`WarcWriter.health()`).
   */
  | 'WARC_WRITE_FAILED'
  /** Not written: writes are failing and the writer has not opened a new file yet. */
  | 'WARC_UNAVAILABLE'
  /** A revisit lacks what its profile needs (identical-payload-digest: the whole original). */
  | 'WARC_BAD_REVISIT'
  /** The bytes at an offset are not one readable WARC record. */
  | 'WARC_BAD_RECORD';

/** The one error type of the WARC module. */
export class WarcError extends CodedError<WarcErrorCode> {
  override readonly name = 'WarcError';

  /** A failed write may succeed on the writer's next file; an unavailable writer needs time. */
  constructor(code: WarcErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, { WARC_WRITE_FAILED: 'retry', WARC_UNAVAILABLE: 'backoff' }, options);
  }
}
