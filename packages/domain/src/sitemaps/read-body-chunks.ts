import { constants, createGunzip } from 'node:zlib';

/** Bytes handed to the reader at a time (raw bodies are sliced, gzip output comes in these). */
export const BODY_CHUNK_BYTES = 64 * 1024;

/** Raw bytes handed over between two yields to the event loop (1 MiB). */
const YIELD_EVERY_BYTES = 1024 * 1024;

/** How reading the body ended. */
export interface BodyReadOutcome {
  /** True when the body had more than `maxBytes` (after decompression) and was cut there. */
  truncated: boolean;
  /** Why decompression failed part-way (what came before was delivered), else null. */
  error: string | null;
}

/** True when `body` starts with the gzip magic bytes 1f 8b. */
export function isGzip(body: Uint8Array): boolean {
  return body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
}

/**
 * Hands `body` to `onChunk` in pieces of at most {@link BODY_CHUNK_BYTES}, inflating it
 * streaming when it is gzip (magic bytes, whatever the headers said), and never more than
 * `maxBytes` bytes in all, counted after decompression — a gzip bomb costs at most
 * `maxBytes` of inflation and one chunk of memory. `onChunk` returns false to stop early.
 * A truncated gzip stream delivers what it holds; a corrupt one reports `error`.
 */
export async function readBodyChunks(
  body: Uint8Array,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => boolean,
): Promise<BodyReadOutcome> {
  return isGzip(body) ? readGzip(body, maxBytes, onChunk) : readPlain(body, maxBytes, onChunk);
}

async function readPlain(
  body: Uint8Array,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => boolean,
): Promise<BodyReadOutcome> {
  const end = Math.min(body.length, maxBytes);
  for (let at = 0; at < end; at += BODY_CHUNK_BYTES) {
    if (!onChunk(body.subarray(at, Math.min(at + BODY_CHUNK_BYTES, end)))) {
      return { truncated: false, error: null };
    }
    // Let other work run between megabytes when this is not in a worker.
    if ((at + BODY_CHUNK_BYTES) % YIELD_EVERY_BYTES === 0) await yieldToEventLoop();
  }
  return { truncated: body.length > maxBytes, error: null };
}

async function readGzip(
  body: Uint8Array,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => boolean,
): Promise<BodyReadOutcome> {
  // Z_SYNC_FLUSH: a stream cut short yields what it holds instead of failing.
  const gunzip = createGunzip({ chunkSize: BODY_CHUNK_BYTES, finishFlush: constants.Z_SYNC_FLUSH });
  gunzip.end(body);
  let total = 0;
  try {
    for await (const piece of gunzip as AsyncIterable<Buffer>) {
      const room = maxBytes - total;
      if (piece.length > room) {
        if (room > 0) onChunk(piece.subarray(0, room));
        return { truncated: true, error: null };
      }
      total += piece.length;
      if (!onChunk(piece)) break;
    }
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return {
      truncated: false,
      error: `gzip: ${typeof code === 'string' ? code : 'inflate failed'}`,
    };
  } finally {
    gunzip.destroy();
  }
  return { truncated: false, error: null };
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
