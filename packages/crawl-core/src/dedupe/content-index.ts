import { z } from 'zod';
import { CappedHash, type RedisClient } from '@crawler/adapters/redis';
import { contentIndexKeys } from '../keys';

/** The first capture of a body, as the content index keeps it: enough for a WARC revisit. */
export interface ContentOrigin {
  /** WARC-Record-ID of the response record, with angle brackets. */
  recordId: string;
  /** WARC-Date of that capture (epoch ms). */
  capturedAt: number;
  /** Its WARC-Payload-Digest (`sha1:` base32). */
  payloadDigest: string;
  url: string;
  warcKey: string;
  warcOffset: number;
  warcLength: number;
}

const originSchema = z.tuple([
  z.string().min(1),
  z.coerce.number().int().positive(),
  z.string().min(1),
  z.string().min(1),
  z.coerce.number().int().min(0),
  z.coerce.number().int().min(0),
  z.string().min(1),
]);

/** Shards of the index: the digest's first byte, two hex digits. */
const SHARDS = 256;
/** Default of DEDUPE_CONTENT_MAX_BODIES: distinct bodies remembered at most. */
export const DEFAULT_CONTENT_MAX_BODIES = 3_000_000;

/**
 * The exact-duplicate index: SHA-256 of a body → its first capture, shared by every agent. It
 * lives in 256 Redis shards keyed by the digest's first byte (`{xx}` hash tags spread them over
 * a cluster; one field per distinct body, ~340 bytes with Redis's overhead). A page whose body
 * is already here is archived as a WARC revisit of that capture instead of a second copy.
 *
 * Bounded: each shard is a {@link CappedHash} of two generations of `maxBodies / 512` fields,
 * so the index holds at most `maxBodies` bodies and at least the `maxBodies / 2` most recently
 * captured or matched — a body matched again moves forward, one not seen for a long time is
 * forgotten, and its next copy is stored in full (one more full record, nothing lost). The
 * first generation is the key the unbounded index used, so an existing index is kept and
 * trimmed at its first rotation.
 *
 * Two agents capturing the same new body at the same moment may both store it in full; the
 * first to `remember` wins the index. Nothing is lost either way, only some bytes.
 */
export class ContentIndex {
  private readonly hash: CappedHash;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    /** DEDUPE_CONTENT_MAX_BODIES. */
    maxBodies = DEFAULT_CONTENT_MAX_BODIES,
  ) {
    this.hash = new CappedHash(
      redis,
      (shard) => contentIndexKeys(this.prefix, shard),
      Math.max(1, Math.ceil(maxBodies / (2 * SHARDS))),
    );
  }

  /** The first capture of a body with this SHA-256 (hex), or null if there is none (or it is unreadable). */
  async lookup(sha256: string): Promise<ContentOrigin | null> {
    const raw = await this.hash.get(sha256.slice(0, 2), sha256);
    return raw === null ? null : decode(raw);
  }

  /** Records a capture as the body's first one, unless another got there first. */
  async remember(sha256: string, origin: ContentOrigin): Promise<void> {
    await this.hash.put(sha256.slice(0, 2), [[sha256, encode(origin)]], { onlyNew: true });
  }
}

// `recordId|capturedAt|payloadDigest|warcKey|offset|length|url`: the URL last, as it may hold '|'.
function encode(o: ContentOrigin): string {
  return [o.recordId, o.capturedAt, o.payloadDigest, o.warcKey, o.warcOffset, o.warcLength, o.url]
    .map(String)
    .join('|');
}

function decode(raw: string): ContentOrigin | null {
  const parts = raw.split('|');
  const parsed = originSchema.safeParse([...parts.slice(0, 6), parts.slice(6).join('|')]);
  if (!parsed.success) return null;
  const [recordId, capturedAt, payloadDigest, warcKey, warcOffset, warcLength, url] = parsed.data;
  return { recordId, capturedAt, payloadDigest, url, warcKey, warcOffset, warcLength };
}
