import { describe, expect, it } from 'vitest';
import { decodeStoredRobots, encodeStoredRobots } from './stored-robots';

describe('stored robots.txt', () => {
  const meta = { status: 200, failures: 0, fetchedAt: 1_764_000_000_000 };
  const body = 'User-agent: *\r\nDisallow: /private/\n# "quoted" \\ and ünïcode\n';

  it('round-trips the metadata line and the body bytes, newlines and all', () => {
    const raw = encodeStoredRobots(meta, Buffer.from(body));
    expect(raw.subarray(0, raw.indexOf(0x0a)).toString()).toBe(JSON.stringify(meta));
    expect(decodeStoredRobots(raw.toString('utf8'))).toEqual({ ...meta, body });
    const failed = { status: 0, error: 'timeout' as const, failures: 3, fetchedAt: 1 };
    expect(decodeStoredRobots(encodeStoredRobots(failed, new Uint8Array(0)).toString())).toEqual({
      ...failed,
      body: '',
    });
  });

  it('still reads the earlier layout (one JSON object), and refuses what does not validate', () => {
    expect(decodeStoredRobots(JSON.stringify({ ...meta, body }))).toEqual({ ...meta, body });
    expect(decodeStoredRobots(JSON.stringify({ status: 404, fetchedAt: 5 }))).toEqual({
      status: 404,
      failures: 0,
      fetchedAt: 5,
      body: '',
    });
    expect(decodeStoredRobots('{"status":"x"}\nbody')).toBeNull();
    expect(decodeStoredRobots('not json')).toBeNull();
  });
});
