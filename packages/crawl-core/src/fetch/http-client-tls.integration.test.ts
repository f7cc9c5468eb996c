import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomInt } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createTestCa, type TestCa, type TestCertificate } from '@crawler/testing';
import { FetchError } from './fetch-error';
import { HttpClient, type HttpClientOptions } from './http-client';
import { NetworkGuard } from './network-guard';
import { HostResolver } from './resolve-host';

// The agent's HTTP client over TLS against real HTTPS servers on 127.0.0.1, with a test CA the
// client is told to trust (never with verification turned off).
let ca: TestCa;
const servers: Server[] = [];
const clients: HttpClient[] = [];

beforeAll(() => {
  ca = createTestCa();
});
afterAll(() => ca?.dispose());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

interface TlsServer {
  url: string;
  /** Requests answered. */
  requests: string[];
  /** TLS handshakes completed, and how many of them resumed an earlier session. */
  handshakes: { total: number; resumed: number };
}

async function startHttps(
  certificate: TestCertificate,
  at: { ip: string; port: number } = { ip: '127.0.0.1', port: 0 },
): Promise<TlsServer> {
  const requests: string[] = [];
  const handshakes = { total: 0, resumed: 0 };
  const server = createServer({ ...certificate }, (req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' }).end('hello');
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    handshakes.total++;
    if (socket.isSessionReused()) handshakes.resumed++;
  });
  await new Promise<void>((resolve) => server.listen(at.port, at.ip, resolve));
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  const url = port === 443 ? `https://${at.ip}` : `https://${at.ip}:${port}`;
  return { url, requests, handshakes };
}

function makeClient(opts: Partial<HttpClientOptions> = {}): HttpClient {
  const client = new HttpClient({
    userAgent: 'testbot/0.1',
    connectTimeoutMs: 2000,
    firstByteTimeoutMs: 2000,
    totalTimeoutMs: 5000,
    maxBodyBytes: 1024 * 1024,
    resolver: new HostResolver({}),
    guard: new NetworkGuard(['127.0.0.0/8']),
    trustedCa: [ca.cert],
    ...opts,
  });
  clients.push(client);
  return client;
}

async function reasonOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'answered';
  } catch (err) {
    if (!(err instanceof FetchError)) throw err;
    return err.reason;
  }
}

describe('HttpClient over TLS', () => {
  it('verifies the chain against the trusted CA and says which protocol and cipher answered', async () => {
    const server = await startHttps(ca.issue(['127.0.0.1']));
    const res = await makeClient().get(`${server.url}/page`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(res.tls?.protocol).toBe('TLSv1.3');
    expect(res.tls?.cipherSuite).toMatch(/^TLS_[A-Z0-9_]+$/);
  });

  it('says which protocol and cipher answered on the default port too (no port in the URL)', async () => {
    // A loopback address of its own, so the test may take port 443 (the tests run as root).
    const ip = `127.${randomInt(128, 250)}.${randomInt(1, 250)}.${randomInt(1, 250)}`;
    const server = await startHttps(ca.issue([ip]), { ip, port: 443 });
    expect(server.url).toBe(`https://${ip}`);
    const res = await makeClient().get(`${server.url}/page`);
    expect(res.status).toBe(200);
    expect(res.tls?.protocol).toBe('TLSv1.3');
  });

  it('refuses a certificate no trusted CA signed, one for another name, and any without the CA (tls_error)', async () => {
    const selfSigned = await startHttps(ca.selfSigned(['127.0.0.1']));
    const otherName = await startHttps(ca.issue(['other.test']));
    const good = await startHttps(ca.issue(['127.0.0.1']));
    const client = makeClient();
    expect(await reasonOf(client.get(`${selfSigned.url}/`))).toBe('tls_error');
    expect(await reasonOf(client.get(`${otherName.url}/`))).toBe('tls_error');
    expect(await reasonOf(makeClient({ trustedCa: [] }).get(`${good.url}/`))).toBe('tls_error');
    // No request reached a server whose certificate was refused.
    expect([...selfSigned.requests, ...otherName.requests, ...good.requests]).toEqual([]);
    expect(new FetchError('tls_error', 'x').retry).toBe('backoff');
  });

  it('resumes the TLS session on a new connection to the same host', async () => {
    const server = await startHttps(ca.issue(['127.0.0.1']));
    const client = makeClient();
    // `connection: close` makes every request open a new connection.
    for (let i = 0; i < 3; i++) expect((await client.get(`${server.url}/${i}`)).status).toBe(200);
    expect(server.handshakes.total).toBe(3);
    expect(server.handshakes.resumed).toBeGreaterThanOrEqual(1);
  });

  it('still resumes after garbage collections (undici caches sessions by WeakRef only)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const server = await startHttps(ca.issue(['127.0.0.1']));
    const client = makeClient();
    for (let i = 0; i < 3; i++) {
      expect((await client.get(`${server.url}/${i}`)).status).toBe(200);
      // The session ticket arrives after the handshake; then a busy agent's GCs.
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
      gc();
    }
    expect(server.handshakes).toEqual({ total: 3, resumed: 2 });
  });
});
