import { z } from 'zod';

/** Largest record read (bytes in the WARC file, i.e. compressed). */
export const MAX_CAPTURE_BYTES = 20 * 1024 * 1024;
/** Largest part of the body returned as text. */
export const MAX_BODY_TEXT_BYTES = 256 * 1024;

/** `GET /v1/captures?key=&offset=&length=` and `captures.read`: values of a CDX row. */
export const readCaptureInput = z
  .object({
    /** WARC file key, e.g. `crawl/2026-11-30/agent-1/00000.warc.gz`. */
    key: z
      .string()
      .min(1)
      .max(1024)
      .refine(
        (k) => !k.startsWith('/') && !k.includes('\\') && !k.split('/').includes('..'),
        'a relative object key without ".." segments',
      ),
    offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    length: z.coerce.number().int().min(1).max(MAX_CAPTURE_BYTES),
  })
  .strict();

export const readCaptureOutput = z.object({
  /** WARC-Type, WARC-Target-URI, WARC-Date, digests, … as written. */
  warc_headers: z.record(z.string(), z.string()),
  http_status: z.number().int().nullable(),
  http_headers: z.record(z.string(), z.string()),
  /** The payload decoded as UTF-8 (invalid bytes replaced), at most 256 KiB of it. */
  body: z.string(),
  truncated: z.boolean(),
  /** Payload size in bytes (a revisit has none). */
  body_bytes: z.number().int(),
  /** Whether every digest present matches the bytes. */
  digests_ok: z.boolean(),
});
export type CaptureView = z.infer<typeof readCaptureOutput>;
