import { TextDecoder } from 'node:util';

/**
 * Where the charset a body was decoded with came from, strongest first:
 * - `bom`: a UTF-8 or UTF-16 byte-order mark;
 * - `header`: the `charset` parameter of Content-Type;
 * - `meta`: `<meta charset>` or `<meta http-equiv="Content-Type" content="…; charset=…">` in the
 *   first 1 KiB;
 * - `utf8`: nothing declared (or nothing usable), and the bytes are valid UTF-8;
 * - `fallback`: nothing declared, and the bytes are not valid UTF-8: read as windows-1252,
 *   which maps every byte to a character and so never fails.
 */
export type CharsetSource = 'bom' | 'header' | 'meta' | 'utf8' | 'fallback';

/** A body decoded to text. */
export interface DecodedBody {
  /** The decoded document (without its byte-order mark). */
  html: string;
  /** WHATWG name of the encoding used (`utf-8`, `windows-1252`, `shift_jis`, …). */
  charset: string;
  charsetSource: CharsetSource;
}

/** Bytes searched for a `<meta>` charset declaration (the WHATWG prescan's 1024). */
export const META_PRESCAN_BYTES = 1024;

const HEADER_CHARSET = /;\s*charset\s*=\s*["']?\s*([^\s"';,]+)/i;
const META_CHARSET = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([^\s"'/>;,]+)/i;
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/** A decoder for a WHATWG encoding label, or null when Node does not know it. */
function decoderFor(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label);
  } catch {
    return null;
  }
}

function byteOrderMark(body: Uint8Array): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return null;
}

/**
 * The charset a `<meta>` in the first {@link META_PRESCAN_BYTES} bytes declares, resolved to a
 * decoder. A simplified WHATWG prescan: comments are skipped, the first declaration wins, and
 * (as the standard says) a declared UTF-16 means UTF-8 — bytes that were ASCII-readable enough
 * to hold the `<meta>` are not UTF-16.
 */
function metaDecoder(body: Uint8Array): TextDecoder | null {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, META_PRESCAN_BYTES))
    .toString('latin1')
    .replace(COMMENT, '');
  const label = META_CHARSET.exec(head)?.[1];
  if (!label) return null;
  const decoder = decoderFor(label);
  if (decoder?.encoding.startsWith('utf-16')) return new TextDecoder('utf-8');
  return decoder;
}

/**
 * Decodes an HTML body the way a browser picks its encoding: a byte-order mark first, then the
 * Content-Type `charset`, then a `<meta>` declaration in the first 1 KiB; with none of them
 * (or only labels Node's ICU does not support), UTF-8 if the bytes are valid UTF-8, else
 * windows-1252. A declared encoding is trusted: its invalid sequences become U+FFFD. Never
 * throws.
 *
 * @param body the response body, after content decoding (gzip/br)
 * @param contentType the Content-Type header value, e.g. `text/html; charset=ISO-8859-1`
 */
export function decodeBody(body: Uint8Array, contentType: string): DecodedBody {
  const bom = byteOrderMark(body);
  if (bom) return decodeWith(new TextDecoder(bom), body, 'bom');
  const headerLabel = HEADER_CHARSET.exec(contentType)?.[1];
  const fromHeader = headerLabel ? decoderFor(headerLabel) : null;
  if (fromHeader) return decodeWith(fromHeader, body, 'header');
  const fromMeta = metaDecoder(body);
  if (fromMeta) return decodeWith(fromMeta, body, 'meta');
  try {
    return {
      html: new TextDecoder('utf-8', { fatal: true }).decode(body),
      charset: 'utf-8',
      charsetSource: 'utf8',
    };
  } catch {
    return decodeWith(new TextDecoder('windows-1252'), body, 'fallback');
  }
}

function decodeWith(decoder: TextDecoder, body: Uint8Array, source: CharsetSource): DecodedBody {
  let html = decoder.decode(body);
  if (decoder.encoding === 'windows-1252' && C1_CONTROLS.test(html)) {
    html = html.replace(C1_CONTROLS_ALL, (c) => WINDOWS_1252_C1.charAt(c.charCodeAt(0) - 0x80));
  }
  return { html, charset: decoder.encoding, charsetSource: source };
}

const C1_CONTROLS = /[\u0080-\u009f]/;
const C1_CONTROLS_ALL = /[\u0080-\u009f]/g;
/**
 * WHATWG windows-1252 for bytes 0x80–0x9F. Node 20.18.3+ (and 22.13+) decode windows-1252 —
 * also every `latin1`/`iso-8859-1`/`ascii` label — as ISO-8859-1, turning `€` and smart quotes
 * into C1 controls (nodejs/node#60888); this repairs them, and finds nothing to do on a Node
 * that decodes correctly.
 */
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021' +
  '\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014' +
  '\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
