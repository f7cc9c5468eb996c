import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { HttpClient, type HttpResponse } from './http-client';
import { NetworkGuard } from './network-guard';
import { HostResolver } from './resolve-host';

// The body budget through the real client: gzip bombs and plain pages against a real server on
// 127.0.0.1, many at once.
const MiB = 1024 * 1024;
/** 64 MiB of spaces, ~64 KB of gzip: inflates past any cap used here. */
const BOMB = gzipSync(Buffer.alloc(64 * MiB, 0x20), { level: 9 });
const PAGE = Buffer.from(`<!DOCTYPE html><html><body>${'<p>text</p>'.repeat(2000)}</body></html>`);

let server: Server | null = null;
const clients: HttpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = null;
  }
});

async function startServer(): Promise<string> {
  server = createServer((req, res) => {
    if (req.url?.startsWith('/bomb')) {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(BOMB);
    } else if (req.url?.startsWith('/gz-page')) {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(gzipSync(PAGE));
    } else {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': PAGE.length });
      res.end(PAGE);
    }
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function makeClient(budgetBytes: number, maxBodyBytes: number): HttpClient {
  const client = new HttpClient({
    userAgent: 'testbot/0.1',
    connectTimeoutMs: 2000,
    firstByteTimeoutMs: 5000,
    totalTimeoutMs: 20_000,
    maxBodyBytes,
    bodyBudgetBytes: budgetBytes,
    resolver: new HostResolver({}),
    guard: new NetworkGuard(['127.0.0.0/8']),
  });
  clients.push(client);
  return client;
}

describe('HttpClient body budget', () => {
  it('holds 30 concurrent gzip bombs within the budget plus one body, each read to the cap', async () => {
    const url = await startServer();
    const cap = 4 * MiB;
    const budget = 12 * MiB;
    const client = makeClient(budget, cap);
    const results = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await client.get(
          `${url}/bomb-${i}`,
          {},
          { multiConnection: true, holdBody: true },
        );
        // What the agent does next (archive, parse) takes a moment; the bytes stay reserved.
        await new Promise((resolve) => setTimeout(resolve, 20));
        client.releaseBody(res);
        return res;
      }),
    );
    for (const res of results) {
      expect(res.truncated).toBe('length');
      expect(res.body.length).toBe(cap);
    }
    const b = client.bodyBudget!;
    expect(b.inUse).toBe(0);
    expect(b.holders).toBe(0);
    expect(b.stats.waits).toBeGreaterThan(0);
    expect(b.stats.peakBytes).toBeGreaterThan(budget / 2);
    expect(b.stats.peakBytes).toBeLessThanOrEqual(budget + cap);
  });

  it('lets a body larger than the whole budget through, alone', async () => {
    const url = await startServer();
    const client = makeClient(MiB, 4 * MiB);
    const [a, b] = await Promise.all([client.get(`${url}/bomb-a`), client.get(`${url}/bomb-b`)]);
    expect([a.body.length, b.body.length]).toEqual([4 * MiB, 4 * MiB]);
    expect(client.bodyBudget!.inUse).toBe(0);
  });

  it('never makes ordinary pages wait: 200 at once, plain and gzip', async () => {
    const url = await startServer();
    const client = makeClient(128 * MiB, 10 * MiB);
    const held: HttpResponse[] = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        client.get(
          `${url}/${i % 2 ? 'gz-page' : 'page'}-${i}`,
          {},
          {
            multiConnection: true,
            holdBody: true,
          },
        ),
      ),
    );
    const b = client.bodyBudget!;
    expect(held.every((r) => r.body.equals(PAGE))).toBe(true);
    // Plain pages reserve exactly their Content-Length, compressed ones a 64 KiB first slab.
    expect(b.inUse).toBe(100 * PAGE.length + 100 * 64 * 1024);
    for (const r of held) client.releaseBody(r);
    expect(b.inUse).toBe(0);
    expect(b.stats.waits).toBe(0);
  });
});
