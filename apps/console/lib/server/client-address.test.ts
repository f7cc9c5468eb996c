import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { BlockList } from 'node:net';
import { clientAddress, PEER_HEADER } from './client-address';
import { stampPeerAddress } from './stamp-peer-address';

const none = new BlockList();
const proxies = new BlockList();
proxies.addSubnet('10.0.0.0', 8, 'ipv4');
proxies.addSubnet('fd00::', 8, 'ipv6');

const headers = (h: Record<string, string>) => new Headers(h);

// Runs first: the stamp is process-wide once started.
describe('clientAddress before the stamp runs in this process', () => {
  it('believes no peer header: a client could have sent it', () => {
    expect(clientAddress(headers({ [PEER_HEADER]: '198.51.100.7' }), none)).toBeNull();
  });
});

describe('stampPeerAddress on a real HTTP server', () => {
  let server: Server;
  let seen: Array<string | string[] | undefined> = [];

  beforeAll(async () => {
    stampPeerAddress();
    server = createServer((req, res) => {
      seen.push(req.headers[PEER_HEADER]);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('writes the socket’s address over whatever the client sent under that name', async () => {
    seen = [];
    const port = (server.address() as { port: number }).port;
    for (const sent of [undefined, '203.0.113.66']) {
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/', headers: sent ? { [PEER_HEADER]: sent } : {} },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end();
      });
    }
    expect(seen).toEqual(['127.0.0.1', '127.0.0.1']);
  });
});

describe('clientAddress (with the stamp running, as above)', () => {
  it('is the peer when no trusted proxy is in front, whatever X-Forwarded-For says', () => {
    expect(
      clientAddress(headers({ [PEER_HEADER]: '198.51.100.7', 'x-forwarded-for': '1.2.3.4' }), none),
    ).toBe('198.51.100.7');
    expect(clientAddress(headers({ [PEER_HEADER]: '::ffff:198.51.100.7' }), none)).toBe(
      '198.51.100.7',
    );
    expect(clientAddress(headers({ [PEER_HEADER]: '2001:db8::7' }), none)).toBe('2001:db8::7');
  });

  it('behind trusted proxies: the last X-Forwarded-For entry that is not one of them', () => {
    const via = (xff: string, peer = '10.0.0.1') =>
      clientAddress(headers({ [PEER_HEADER]: peer, 'x-forwarded-for': xff }), proxies);
    // Entries left of the proxies' own are the client's to invent.
    expect(via('6.6.6.6, 198.51.100.8')).toBe('198.51.100.8');
    expect(via('6.6.6.6, 198.51.100.8, 10.0.0.2')).toBe('198.51.100.8');
    expect(via('198.51.100.8, fd00::2', 'fd00::1')).toBe('198.51.100.8');
    expect(via('not-an-ip, 198.51.100.9')).toBe('198.51.100.9');
    expect(via('10.0.0.3, 10.0.0.2')).toBe('10.0.0.3');
    expect(clientAddress(headers({ [PEER_HEADER]: '10.0.0.1' }), proxies)).toBe('10.0.0.1');
    // A peer outside the trusted networks is the client, even if it sends X-Forwarded-For.
    expect(via('10.0.0.9', '198.51.100.10')).toBe('198.51.100.10');
  });

  it('is null without a valid peer header', () => {
    expect(clientAddress(headers({}), none)).toBeNull();
    expect(clientAddress(headers({ [PEER_HEADER]: 'bogus' }), none)).toBeNull();
  });
});
