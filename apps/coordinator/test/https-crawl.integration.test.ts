import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadStream, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import { WARCParser } from 'warcio';
import { readWarcFile } from '@crawler/adapters/warc';
import { createTestCa, type TestCa, type TestCertificate } from '@crawler/testing';
import { startCrawlStack, type CrawlStack } from './crawl-stack';

// A crawl over HTTPS: a host whose certificate the test CA signed is crawled and archived with
// the protocols that carried it; a host with a certificate nobody trusted signed is refused
// with tls_error and nothing of it is fetched. The agent trusts the CA through FETCH_CA_FILE.
const GOOD = 'good.tls.test';
const BAD = 'bad.tls.test';
// Loopback addresses of their own, so concurrent test files do not collide.
const NET = `127.${randomInt(128, 250)}.${randomInt(1, 250)}`;
let ca: TestCa;
let stack: CrawlStack;
const hosts: Record<string, { server: Server; url: string; requests: string[]; tls: number }> = {};

async function startHost(name: string, ip: string, certificate: TestCertificate) {
  const requests: string[] = [];
  const host = { server: null as unknown as Server, url: '', requests, tls: 0 };
  host.server = createServer({ ...certificate }, (req, res) => {
    requests.push(req.url ?? '');
    const page = (links: string[]) =>
      `<html><head><title>${req.url}</title></head><body>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(page(['/a']));
    else if (req.url === '/a') res.writeHead(200, { 'content-type': 'text/html' }).end(page([]));
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  host.server.on('secureConnection', (_s: TLSSocket) => host.tls++);
  await new Promise<void>((resolve) => host.server.listen(0, ip, resolve));
  host.url = `https://${name}:${(host.server.address() as AddressInfo).port}`;
  hosts[name] = host;
}

beforeAll(async () => {
  ca = createTestCa();
  await startHost(GOOD, `${NET}.61`, ca.issue([GOOD]));
  await startHost(BAD, `${NET}.62`, ca.selfSigned([BAD]));
  stack = await startCrawlStack(
    { dnsMap: { [GOOD]: `${NET}.61`, [BAD]: `${NET}.62` } },
    {
      FETCH_CA_FILE: ca.certFile,
      CRAWLER_DEFAULT_GAP_MS: '50',
      QUALITY_SOFT404_PROBE: 'false',
    },
    ['tls-agent'],
  );
  const res = await fetch(`${stack.coordinator.url}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({ urls: [`${hosts[GOOD]!.url}/`, `${hosts[BAD]!.url}/x`] }),
  });
  expect(res.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  for (const h of Object.values(hosts)) {
    h.server.closeAllConnections();
    await new Promise((resolve) => h.server.close(resolve));
  }
  ca?.dispose();
});

interface Row {
  host: string;
  url: string;
  status: number;
  error_code: string;
}

describe('crawling over HTTPS', () => {
  let rows: Row[] = [];

  it('crawls the trusted host and refuses the other with tls_error, fetching nothing of it', async () => {
    const [agent] = stack.agents;
    agent!.start();
    const query = () =>
      stack.coordinator.services.analytics.queryJson<Row>(
        'SELECT host, url, status, error_code FROM fetches FINAL',
      );
    for (let i = 0; i < 200; i++) {
      await sleep(250);
      await stack.coordinator.ingest.settle();
      rows = await query();
      const good = rows.filter((r) => r.host === GOOD && r.status === 200);
      if (good.length >= 2 && rows.some((r) => r.host === BAD)) break;
    }
    await agent!.stop();
    await stack.coordinator.ingest.settle();
    rows = await query();

    expect(hosts[GOOD]!.requests.sort()).toEqual(['/', '/a', '/robots.txt']);
    const bad = rows.filter((r) => r.host === BAD);
    expect(bad.length).toBeGreaterThan(0);
    // Only robots.txt was tried (its failure makes the host unreachable), each time refused.
    expect(bad.map((r) => [new URL(r.url).pathname, r.status, r.error_code])).toEqual(
      bad.map(() => ['/robots.txt', 0, 'tls_error']),
    );
    expect(hosts[BAD]!.requests).toEqual([]);
    expect(hosts[BAD]!.tls).toBe(0);
  }, 90_000);

  it('archives the HTTPS exchanges in WARC that warcio reads, with WARC-Protocol and WARC-Cipher-Suite', async () => {
    const warcRoot = join(stack.env.dataDir, 'warc');
    const files = readdirSync(warcRoot, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.warc.gz'))
      .map((f) => join(warcRoot, f));
    expect(files.length).toBeGreaterThan(0);
    const seen: Array<{ type: string; uri: string; protocols: string[]; cipher: string }> = [];
    for (const file of files) {
      for await (const record of new WARCParser(createReadStream(file), {
        keepHeadersCase: true,
      })) {
        await record.readFully(true);
        const uri = record.warcTargetURI ?? '';
        if (!uri.startsWith(hosts[GOOD]!.url)) continue;
        // warcio keeps repeated WARC fields joined.
        const protocols = (record.warcHeaders.headers.get('WARC-Protocol') ?? '')
          .split(/,\s*/)
          .filter(Boolean);
        seen.push({
          type: record.warcType ?? '',
          uri,
          protocols,
          cipher: record.warcHeaders.headers.get('WARC-Cipher-Suite') ?? '',
        });
      }
      for await (const rec of readWarcFile(file))
        expect(rec.digestsOk, rec.targetUri ?? '').toBe(true);
    }
    const pages = seen.filter((s) => s.type === 'response' && !s.uri.endsWith('/robots.txt'));
    expect(pages.map((s) => new URL(s.uri).pathname).sort()).toEqual(['/', '/a']);
    for (const s of seen.filter((x) => x.type === 'response' || x.type === 'request')) {
      expect(s.protocols, s.uri).toEqual(['http/1.1', 'tls/1.3']);
      expect(s.cipher, s.uri).toMatch(/^TLS_[A-Z0-9_]+$/);
    }
  });
});
