import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetRobotsTxt, startHostileFleet, type HostileFleet } from './hostile-fleet.js';

/** GET through the fleet's own address for `host`, with the Host header set. */
function get(fleet: HostileFleet, host: string, path: string, limit = 1 << 20) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(
        { host: fleet.dnsMap[host], port: fleet.port, path, headers: { host } },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            size += c.length;
            if (size >= limit) res.destroy(); // a client that stops reading a bomb
          });
          const done = () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            });
          res.on('end', done);
          res.on('close', done);
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

describe('hostile fleet', () => {
  let fleet: HostileFleet;
  beforeAll(async () => {
    fleet = await startHostileFleet({ robotsHosts: 3, bombHosts: 2 });
  });
  afterAll(async () => {
    await fleet.close();
  });

  it('writes a robots.txt of exactly the size asked, its rules first', () => {
    const text = fleetRobotsTxt(500 * 1024, 1000);
    expect(Buffer.byteLength(text)).toBe(500 * 1024);
    expect(text.split('\n').filter((l) => /^(Allow|Disallow):/.test(l))).toHaveLength(1000);
    expect(
      fleetRobotsTxt(0, 10)
        .split('\n')
        .filter((l) => /^(Allow|Disallow):/.test(l)),
    ).toHaveLength(10);
  });

  it('serves the big robots.txt, tiny pages and held-open bombs on their own addresses', async () => {
    const [robotsHost] = Object.keys(fleet.dnsMap);
    expect(fleet.dnsMap[robotsHost!]).toBe('127.2.1.1');
    expect(fleet.robotsSeeds).toHaveLength(3);
    expect(fleet.bombSeeds).toHaveLength(2);
    const robots = await get(fleet, robotsHost!, '/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.body.toString()).toBe(fleet.robotsTxt);
    expect((await get(fleet, robotsHost!, '/')).status).toBe(200);
    const bombHost = new URL(fleet.bombSeeds[0]!).hostname;
    expect((await get(fleet, bombHost, '/robots.txt')).status).toBe(404);
    const bomb = await get(fleet, bombHost, '/bomb.html', 64 * 1024);
    expect(bomb.headers['content-encoding']).toBe('gzip');
    // Spaces, about a thousand times the bytes on the wire.
    const inflated = gunzipSync(bomb.body.subarray(0, 8192), { finishFlush: 2 /* Z_SYNC_FLUSH */ });
    expect(inflated.length).toBeGreaterThan(5 * 1024 * 1024);
    const s = fleet.stats();
    expect(s).toMatchObject({ robots: 1, pages: 1, bombs: 1, bombsPeak: 1 });
  });
});
