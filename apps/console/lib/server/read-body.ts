// Request bodies are read with a limit, before anything is parsed: a declared Content-Length
// over it is refused unread, and a body sent without one (chunked) is counted as it streams
// in and cut off at the limit, so an upload never has to fit in memory to be refused.

/** What the console relays to the coordinator at most: the coordinator's own limit (2 MiB). */
export const MAX_RELAY_BODY_BYTES = 2 * 1024 * 1024;
/** A sign-in: an email and a password. */
export const MAX_SIGN_IN_BODY_BYTES = 16 * 1024;

/** The body, or why it was refused (too large: say so with a 413 and `connection: close`). */
export type BodyText = { ok: true; text: string } | { ok: false; tooLarge: string };

function tooLarge(maxBytes: number): BodyText {
  const limit =
    maxBytes >= 1024 * 1024 ? `${maxBytes / (1024 * 1024)} MiB` : `${maxBytes / 1024} KiB`;
  return { ok: false, tooLarge: `The request is too large (${limit} at most).` };
}

/**
 * The body of `request` as UTF-8 text, or a refusal when it is larger than `maxBytes` (by its
 * Content-Length, or by what arrived so far when it has none or understates it). The rest of
 * a refused upload is not read: the connection cannot carry another request.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<BodyText> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes)
    return tooLarge(maxBytes);
  if (request.body === null) return { ok: true, text: '' };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}
