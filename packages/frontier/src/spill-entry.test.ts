import { describe, expect, it } from 'vitest';
import { packSpillEntry, unpackSpillEntry } from './spill-entry';

const head = '0123456789abcdef|0|2|0|L';

describe('spilled entries', () => {
  it('drop the host’s own https:// or http:// prefix and get it back', () => {
    const https = `${head}|https://a.test/x/y?q=1|2`;
    expect(packSpillEntry(https, 'a.test')).toBe(`${head}|/x/y?q=1|2`);
    const http = `${head}|http://a.test/p`;
    expect(packSpillEntry(http, 'a.test')).toBe(`${head}|:/p`);
    for (const e of [https, http])
      expect(unpackSpillEntry(packSpillEntry(e, 'a.test'), 'a.test')).toBe(e);
  });

  it('keep every other entry as it is, and come back unchanged', () => {
    const entries = [
      `${head}|https://b.test/x`, // another host
      `${head}|https://a.test:8080/x`, // a port
      `${head}|https://a.testing/x`, // a longer host
      `${head}|https://a.test`, // no path
      `${head}|ftp://a.test/x`,
      `${head}|/relative`, // never queued, but must survive
      `${head}|:odd`,
      `${head}|=odd`,
      `${head}5;eyJldGFnIjoiXCJ4XCIifQ|https://a.test/r`, // hops and a prior capture
      'not an entry',
    ];
    for (const e of entries)
      expect(unpackSpillEntry(packSpillEntry(e, 'a.test'), 'a.test')).toBe(e);
    expect(packSpillEntry(entries[0]!, 'a.test')).toBe(entries[0]);
  });
});
