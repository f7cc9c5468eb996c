/** Stable codes of {@link WarcError}: branch on these, never on the message. */
export type WarcErrorCode =
  /** Options failed validation. */
  | 'WARC_BAD_OPTIONS'
  /** The writer was closed; nothing more can be written. */
  | 'WARC_WRITER_CLOSED'
  /** An append failed part-way; the file may end in a partial record, so the writer stops. */
  | 'WARC_WRITE_FAILED'
  /** A revisit lacks what its profile needs (identical-payload-digest: the whole original). */
  | 'WARC_BAD_REVISIT'
  /** The bytes at an offset are not one readable WARC record. */
  | 'WARC_BAD_RECORD';

/** The one error type of the WARC module. */
export class WarcError extends Error {
  override readonly name = 'WarcError';

  constructor(
    readonly code: WarcErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
