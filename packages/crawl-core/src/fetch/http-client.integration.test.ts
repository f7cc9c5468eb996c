import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, pipeline } from 'node:stream';
import { brotliCompressSync, createGzip, deflateSync, gzipSync } from 'node:zlib';
import { FetchError, type FetchErrorCode } from './fetch-error';
import { HttpClient, headerValue, type HttpClientOptions, type HttpResponse } from './http-client';
import { NetworkGuard } from './network-guard';
import { HostResolver } from './resolve-host';

// The agent's HTTP client against real HTTP servers on 127.0.0.1: hostile bodies and headers,
// slow and silent servers, refused connections, the SSRF guard and content decoding.
const UA = 'Mozilla/5.0 (compatible; testbot/0.1; +https://example.test/bot)';
const MiB = 1024 * 1024;

interface TestServer {
  port: number;
  url: string;
  /** Headers of every request the server received. */
  requests: IncomingHttpHeaders[];
  close(): Promise<void>;
}

const servers: TestServer[] = [];
const clients: HttpClient[] = [];
const tmpDirs: string[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const d of tmpDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function startServer(
  handler: (res: ServerResponse, path: string) => void,
): Promise<TestServer> {
  const requests: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.headers);
    handler(res, req.url ?? '/');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const s: TestServer = {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(s);
  return s;
}

function makeClient(opts: Partial<HttpClientOptions> = {}): HttpClient {
  const client = new HttpClient({
    userAgent: UA,
    connectTimeoutMs: 1000,
    firstByteTimeoutMs: 2000,
    totalTimeoutMs: 5000,
    maxBodyBytes: MiB,
    resolver: new HostResolver({}),
    guard: new NetworkGuard(['127.0.0.0/8']),
    ...opts,
  });
  clients.push(client);
  return client;
}

/** The FetchError a request fails with (fails the test when it answers instead). */
async function fetchError(p: Promise<HttpResponse>): Promise<FetchError> {
  let res: HttpResponse;
  try {
    res = await p;
  } catch (err) {
    if (err instanceof FetchError) return err;
    throw err;
  }
  throw new Error(`expected a FetchError, got HTTP ${res.status} (truncated: ${res.truncated})`);
}

function expectCode(err: FetchError, code: FetchErrorCode): void {
  expect(err.reason, err.message).toBe(code);
  expect(err.message.startsWith(`${code}:`)).toBe(true);
}

describe('HttpClient: hostile bodies', () => {
  it('stops a gzip bomb at maxBodyBytes of decoded data with bounded memory', async () => {
    const bombBytes = 200 * MiB;
    const zeros = Buffer.alloc(64 * 1024);
    let produced = 0;
    const server = await startServer((res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      // 200 MiB of zeros, compressed as it is sent (never held in memory).
      const source = new Readable({
        read() {
          if (produced >= bombBytes) return void this.push(null);
          produced += zeros.length;
          this.push(zeros);
        },
      });
      pipeline(source, createGzip({ level: 1 }), res, () => undefined);
    });
    const client = makeClient({ maxBodyBytes: MiB, totalTimeoutMs: 10_000 });

    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    let res: HttpResponse;
    try {
      res = await client.get(`${server.url}/bomb`);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage.rss());

    expect(res.status).toBe(200);
    expect(res.truncated).toBe('length');
    expect(res.contentEncoding).toBe('gzip');
    expect(res.body.length).toBe(MiB);
    expect(res.body.every((b) => b === 0)).toBe(true);
    // The whole bomb decoded would be 200 MiB; the client must never come near that.
    expect(peak - baseline).toBeLessThan(64 * MiB);
  });

  it('caps an uncompressed body at maxBodyBytes too', async () => {
    const server = await startServer((res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(3 * 64 * 1024, 0x61));
    });
    const res = await makeClient({ maxBodyBytes: 64 * 1024 }).get(`${server.url}/big`);
    expect(res.truncated).toBe('length');
    expect(res.body.length).toBe(64 * 1024);
    expect(res.contentEncoding).toBeNull();
  });

  /**
   * A server sending `total` bytes of body after its headers (with or without a Content-Length),
   * 64 KiB at a time as the socket takes them, counting the bytes the socket accepted.
   */
  async function startBigServer(total: number, withLength: boolean) {
    const sent = { bytes: 0, done: Promise.resolve() };
    const server = await startServer((res) => {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        ...(withLength ? { 'content-length': String(total) } : {}),
      });
      res.flushHeaders();
      const chunk = Buffer.alloc(64 * 1024, 0x62);
      const closed = new Promise((resolve) => res.once('close', resolve));
      sent.done = (async () => {
        // A moment for a client that stops at the headers to close the connection first.
        await new Promise((resolve) => setTimeout(resolve, 100));
        while (sent.bytes < total && !res.destroyed) {
          const ok = res.write(chunk);
          sent.bytes += chunk.length;
          if (!ok)
            await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
        }
        res.end();
      })();
    });
    return { server, sent };
  }

  it('cuts a body whose Content-Length is over the cap at its headers: not a byte is downloaded', async () => {
    const { server, sent } = await startBigServer(64 * MiB, true);
    const res = await makeClient({ maxBodyBytes: MiB }).get(`${server.url}/announced`);
    await sent.done;
    expect(res.status).toBe(200);
    expect(res.truncated).toBe('length');
    expect(res.body.length).toBe(0);
    // The connection was closed before the body started: at most what the first writes put in
    // the socket before the reset arrived, far below the 1 MiB cap.
    expect(sent.bytes).toBeLessThan(MiB / 2);
  });

  it('reads no body of a 304 whatever its Content-Length says, and calls it whole', async () => {
    const server = await startServer((res, path) => {
      res
        .writeHead(304, {
          etag: '"x"',
          'content-length': String(path === '/big' ? 64 * MiB : 1000),
        })
        .end();
    });
    for (const path of ['/small', '/big']) {
      const res = await makeClient({ maxBodyBytes: MiB }).get(`${server.url}${path}`);
      expect([path, res.status, res.truncated, res.body.length]).toEqual([path, 304, null, 0]);
    }
  });

  it('stops a chunked body over the cap at the cap', async () => {
    const { server, sent } = await startBigServer(64 * MiB, false);
    const res = await makeClient({ maxBodyBytes: MiB }).get(`${server.url}/chunked`);
    await sent.done;
    expect(res.truncated).toBe('length');
    expect(res.body.length).toBe(MiB);
    // The cap plus what the kernel's socket buffers held when the client closed: not 64 MiB.
    expect(sent.bytes).toBeLessThan(16 * MiB);
  });

  it('reads bodies into shared memory, which a worker reads in place (no copy)', async () => {
    const server = await startServer((res, path) => {
      const body = Buffer.alloc(100_000, 0x63);
      if (path === '/length') res.writeHead(200, { 'content-length': String(body.length) });
      else res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(path === '/length' ? body : gzipSync(body));
    });
    const client = makeClient();
    for (const path of ['/length', '/gzip']) {
      const res = await client.get(`${server.url}${path}`);
      expect([path, res.body.length, res.body.buffer instanceof SharedArrayBuffer]).toEqual([
        path,
        100_000,
        true,
      ]);
    }
  });

  it('reads the first maxBodyBytes of an announced oversize body when asked (robots.txt)', async () => {
    const { server, sent } = await startBigServer(4 * MiB, true);
    const res = await makeClient({ maxBodyBytes: MiB }).get(
      `${server.url}/robots.txt`,
      {},
      { readOversize: true },
    );
    await sent.done;
    expect(res.truncated).toBe('length');
    expect(res.body.length).toBe(MiB);
  });

  it('ends a trickling body (1 byte / 200 ms) at totalTimeoutMs', async () => {
    const timers: NodeJS.Timeout[] = [];
    const server = await startServer((res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      res.flushHeaders();
      const t = setInterval(() => res.write('x'), 200);
      timers.push(t);
      res.on('close', () => clearInterval(t));
    });
    const client = makeClient({ firstByteTimeoutMs: 2000, totalTimeoutMs: 1000 });
    const started = performance.now();
    let outcome: string;
    try {
      const res = await client.get(`${server.url}/slow`);
      outcome = `truncated:${res.truncated}`;
      // What arrived before the deadline is kept: a few bytes, far from the 1000 announced.
      expect(res.body.length).toBeGreaterThan(0);
      expect(res.body.length).toBeLessThan(20);
      expect(res.fetchMs).toBeGreaterThanOrEqual(900);
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      outcome = err.reason;
    }
    const elapsed = performance.now() - started;
    for (const t of timers) clearInterval(t);
    expect(['truncated:time', 'total_timeout']).toContain(outcome);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3000);
  });

  it('cuts a body slower than the minimum speed (too_slow), plain or compressed', async () => {
    const timers: NodeJS.Timeout[] = [];
    const server = await startServer((res, path) => {
      const gzip = path === '/gz';
      res.writeHead(200, {
        'content-type': 'text/plain',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      res.flushHeaders();
      // 100 bytes every 250 ms = 400 B/s, under the 1 KiB/s floor. Gzipped random bytes do not
      // inflate, so the body is slow both on the wire and decoded.
      const body = gzip ? gzipSync(randomBytes(100_000)) : Buffer.alloc(100_000, 120);
      let offset = 0;
      const t = setInterval(() => res.write(body.subarray(offset, (offset += 100))), 250);
      timers.push(t);
      res.on('close', () => clearInterval(t));
    });
    const client = makeClient({ minSpeedBytesPerS: 1024, minSpeedWindowMs: 1000 });
    for (const path of ['/plain', '/gz']) {
      const res = await client.get(`${server.url}${path}`);
      expect([path, res.truncated]).toEqual([path, 'slow']);
      expect(res.fetchMs).toBeGreaterThanOrEqual(900);
      expect(res.fetchMs).toBeLessThan(2500);
    }
    for (const t of timers) clearInterval(t);
  });

  it('does not call a body slow that arrives slowly on the wire but inflates fast', async () => {
    const server = await startServer((res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.flushHeaders();
      // 100 wire bytes every 250 ms, each inflating to ~100 KB: the 1 MiB cap ends it, not speed.
      const body = gzipSync(Buffer.alloc(5_000_000));
      let offset = 0;
      const t = setInterval(() => res.write(body.subarray(offset, (offset += 100))), 250);
      res.on('close', () => clearInterval(t));
    });
    const client = makeClient({ minSpeedBytesPerS: 1024, minSpeedWindowMs: 1000 });
    const res = await client.get(`${server.url}/inflates`);
    expect(res.truncated).toBe('length');
  });

  it('keeps a body that is slow to start but fast enough once flowing', async () => {
    const server = await startServer((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
      let sent = 0;
      const t = setInterval(() => {
        res.write(Buffer.alloc(2000, 120));
        if ((sent += 2000) >= 12_000) {
          clearInterval(t);
          res.end();
        }
      }, 200);
    });
    const client = makeClient({ minSpeedBytesPerS: 1024, minSpeedWindowMs: 500 });
    const res = await client.get(`${server.url}/ok`);
    expect([res.truncated, res.body.length]).toEqual([null, 12_000]);
  });

  it('reports a server that hangs up mid-body as truncated: disconnect', async () => {
    const server = await startServer((res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100000' });
      res.write('partial', () => setTimeout(() => res.destroy(), 50));
    });
    const res = await makeClient().get(`${server.url}/cut`);
    expect(res.truncated).toBe('disconnect');
    expect(res.body.toString()).toBe('partial');
  });
});

describe('HttpClient: connection failures', () => {
  it('gives first_byte_timeout when the server never answers', async () => {
    const server = await startServer(() => undefined);
    const client = makeClient({ firstByteTimeoutMs: 300, totalTimeoutMs: 8000 });
    const started = performance.now();
    const err = await fetchError(client.get(`${server.url}/silent`));
    expectCode(err, 'first_byte_timeout');
    expect(err.retry).toBe('backoff');
    expect(performance.now() - started).toBeLessThan(3000);
    expect(server.requests).toHaveLength(1);
  });

  it('gives connect_refused when nothing listens', async () => {
    const probe = await startServer(() => undefined);
    const port = probe.port;
    await probe.close();
    servers.splice(servers.indexOf(probe), 1);
    const err = await fetchError(makeClient().get(`http://127.0.0.1:${port}/`));
    expectCode(err, 'connect_refused');
    expect(err.retry).toBe('backoff');
  });

  it('gives headers_too_large for response headers over 64 KiB', async () => {
    const server = await startServer((res) => {
      res.setHeader('x-filler', 'a'.repeat(100 * 1024));
      res.end('ok');
    });
    const err = await fetchError(makeClient().get(`${server.url}/`));
    expectCode(err, 'headers_too_large');
    expect(err.retry).toBe('give_up');
  });
});

describe('HttpClient: SSRF guard', () => {
  it('refuses loopback with the default guard, in every literal spelling, before connecting', async () => {
    const server = await startServer((res) => res.end('secret'));
    const client = makeClient({ guard: new NetworkGuard([]) });
    const spellings = [
      `http://127.0.0.1:${server.port}/`,
      `http://[::ffff:127.0.0.1]:${server.port}/`,
      `http://2130706433:${server.port}/`,
      `http://0x7f.1:${server.port}/`,
      `http://127.1:${server.port}/`,
      `http://[::1]:${server.port}/`,
    ];
    for (const url of spellings) {
      const err = await fetchError(client.get(url));
      expect(err.reason, url).toBe('private_address');
      expect(err.retry).toBe('give_up');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('checks the resolved address of a host name (name → 127.0.0.1 is refused)', async () => {
    const server = await startServer((res) => res.end('secret'));
    const dir = mkdtempSync(join(tmpdir(), 'http-client-'));
    tmpDirs.push(dir);
    const dnsMapFile = join(dir, 'dns-map.json');
    writeFileSync(dnsMapFile, JSON.stringify({ 'internal.test': '127.0.0.1' }));

    const refused = makeClient({
      guard: new NetworkGuard([]),
      resolver: new HostResolver({ dnsMapFile }),
    });
    const err = await fetchError(refused.get(`http://internal.test:${server.port}/`));
    expectCode(err, 'private_address');
    expect(server.requests).toHaveLength(0);

    // The same name with the network allow-listed connects, and the IP is recorded.
    const allowed = makeClient({ resolver: new HostResolver({ dnsMapFile }) });
    const res = await allowed.get(`http://internal.test:${server.port}/`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('secret');
    expect(res.ip).toBe('127.0.0.1');
    expect(server.requests).toHaveLength(1);
  });
});

describe('HttpClient: decoding and request headers', () => {
  const text = '<html><body>' + 'héllo wörld '.repeat(500) + '</body></html>';
  const encoders: Record<string, (b: Buffer) => Buffer> = {
    gzip: (b) => gzipSync(b),
    deflate: (b) => deflateSync(b),
    br: (b) => brotliCompressSync(b),
  };

  it.each(Object.keys(encoders))('decodes a %s body', async (encoding) => {
    const encoded = encoders[encoding]!(Buffer.from(text));
    const server = await startServer((res) => {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-encoding': encoding,
        'content-length': String(encoded.length),
      });
      res.end(encoded);
    });
    const res = await makeClient().get(`${server.url}/page`);
    expect(res.status).toBe(200);
    expect(res.truncated).toBeNull();
    expect(res.contentEncoding).toBe(encoding);
    expect(res.contentType).toBe('text/html');
    expect(res.body.toString('utf8')).toBe(text);
    expect(headerValue(res.headers, 'Content-Encoding')).toBe(encoding);
  });

  it('sends the configured User-Agent and advertises the encodings it decodes', async () => {
    const server = await startServer((res) => res.end('ok'));
    const res = await makeClient().get(`${server.url}/ua`, { 'If-None-Match': '"abc"' });
    expect(res.body.toString()).toBe('ok');
    expect(server.requests).toHaveLength(1);
    const seen = server.requests[0]!;
    expect(seen['user-agent']).toBe(UA);
    expect(seen['user-agent']).toContain('testbot/0.1');
    expect(seen['accept-encoding']).toContain('br');
    expect(seen['accept-encoding']).toContain('gzip');
    expect(seen['if-none-match']).toBe('"abc"');
    expect(headerValue(res.requestHeaders, 'user-agent')).toBe(UA);
    expect(res.ip).toBe('127.0.0.1');
  });
});
