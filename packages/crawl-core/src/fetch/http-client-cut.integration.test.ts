import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FetchError } from './fetch-error';
import { HttpClient } from './http-client';
import { NetworkGuard } from './network-guard';
import { HostResolver } from './resolve-host';

// A drain's cut (AGENT_DRAIN_GRACE_MS) abandons a request at once, in whatever phase it is,
// against real slow servers on 127.0.0.1.
const open: Array<{ server: Server; timers: NodeJS.Timeout[] }> = [];
const clients: HttpClient[] = [];

afterEach(async () => {
  for (const { server, timers } of open.splice(0)) {
    for (const t of timers) clearInterval(t);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function serve(handler: (res: ServerResponse, timers: NodeJS.Timeout[]) => void) {
  const timers: NodeJS.Timeout[] = [];
  const server = createServer((_req, res) => handler(res, timers));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({ server, timers });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

function client(): HttpClient {
  const c = new HttpClient({
    userAgent: 'testbot/0.1',
    connectTimeoutMs: 1000,
    firstByteTimeoutMs: 8000,
    totalTimeoutMs: 8000,
    maxBodyBytes: 1024 * 1024,
    resolver: new HostResolver({}),
    guard: new NetworkGuard(['127.0.0.0/8']),
  });
  clients.push(c);
  return c;
}

/** Cuts after `ms`; resolves with the error and how long the request took after the cut. */
async function cutAfter(url: string, ms: number) {
  const cut = new AbortController();
  const started = performance.now();
  setTimeout(() => cut.abort(), ms);
  let error: unknown = null;
  try {
    await client().get(url, {}, { cut: cut.signal });
  } catch (err) {
    error = err;
  }
  return { error, afterCutMs: performance.now() - started - ms };
}

describe('HttpClient: a drain cut', () => {
  it('abandons a request still waiting for its headers with drain_cut, at once', async () => {
    const url = await serve(() => undefined);
    const { error, afterCutMs } = await cutAfter(url, 200);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).reason).toBe('drain_cut');
    expect(afterCutMs).toBeLessThan(500);
  });

  it('abandons a trickling body with drain_cut instead of returning it truncated', async () => {
    const url = await serve((res, timers) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
      res.flushHeaders();
      timers.push(setInterval(() => res.write('x'), 100));
    });
    const { error, afterCutMs } = await cutAfter(url, 300);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).reason).toBe('drain_cut');
    expect(afterCutMs).toBeLessThan(500);
  });

  it('refuses to start once the cut has happened, and leaves a finished request alone', async () => {
    const url = await serve((res) => res.end('<html>ok</html>'));
    const cut = new AbortController();
    const res = await client().get(url, {}, { cut: cut.signal });
    expect(res.status).toBe(200);
    cut.abort();
    await expect(client().get(url, {}, { cut: cut.signal })).rejects.toMatchObject({
      reason: 'drain_cut',
    });
  });
});
