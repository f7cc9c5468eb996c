/**
 * The part of a key Redis Cluster hashes: the text between the first `{` and the next `}` when
 * it is not empty, else the whole key (the cluster specification's hash-tag rule).
 */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return key.slice(open + 1, close);
  }
  return key;
}

const table = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let b = 0; b < 8; b++) c = c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1;
    t[i] = c & 0xffff;
  }
  return t;
})();

/**
 * The Redis Cluster slot of a key (CRC16/XMODEM of its hash tag, mod 16384), the same number
 * `CLUSTER KEYSLOT` answers; lets tests on a single Redis check the slot rule too.
 */
export function keySlot(key: string): number {
  let crc = 0;
  for (const byte of Buffer.from(hashTagOf(key), 'utf8')) {
    crc = ((crc << 8) & 0xffff) ^ (table[((crc >> 8) ^ byte) & 0xff] ?? 0);
  }
  return crc % 16384;
}
