import { z } from 'zod';

/**
 * The fields the messages share, each bounded once: a message that passes its schema fits the
 * ClickHouse column it lands in (UInt16/UInt32 bounds), and the same field has the same bound in
 * every message. Strings are bounded where ClickHouse is not, to cap what one message may cost.
 */

/** Largest UInt16 (`depth`) and UInt32 (`bytes`, `fetch_ms`, `warc_length`, …) values. */
export const UINT16_MAX = 0xffff;
export const UINT32_MAX = 0xffff_ffff;

/** An unsigned integer up to `max`. */
export const uint = (max: number) => z.number().int().min(0).max(max);

/** The URL's fingerprint (`urlFingerprint` of the normalized URL): 16 hex digits. */
export const urlFpField = z.string().regex(/^[0-9a-f]{16}$/, '16 hex digits');
/** A URL, as normalized (≤ 2048 by default) or as a server sent it (a redirect target). */
export const urlField = z.string().max(8192);
/**
 * A host name: DNS caps it at 253, but WHATWG URLs do not check DNS lengths, so the bound is the
 * wider 255 the `fetches` table took.
 */
export const hostField = z.string().min(1).max(255);
/** An instant as epoch milliseconds. */
export const epochMsField = z.number().int().positive();
/** A media type as the agent read it from Content-Type (parameters dropped). */
export const contentTypeField = z.string().max(255);
/** The agent's id: AGENT_ID (≤ 64) with the `-<n>` of a local process, or hostname-pid. */
export const agentIdField = z.string().max(128);
/** Object key of a WARC file, and a record's WARC-Record-ID (`<urn:uuid:…>`). */
export const warcKeyField = z.string().max(1024);
export const recordIdField = z.string().max(100);
/** SHA-256 (hex) of a body, and the 64-bit SimHash (16 hex digits) of a text. */
export const sha256Field = z.string().regex(/^[0-9a-f]{64}$/, 'sha256 hex');
export const simhashField = z.string().regex(/^[0-9a-f]{16}$/, '16 hex digits');
/** The same, or '' when there is none. */
export const sha256OrEmpty = z.string().regex(/^([0-9a-f]{64})?$/, 'sha256 hex or ""');
export const simhashOrEmpty = z.string().regex(/^([0-9a-f]{16})?$/, '16 hex digits or ""');
/** Hops from a seed (UInt16). */
export const depthField = uint(UINT16_MAX);
