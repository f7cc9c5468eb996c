// s3rver ships no types: its declaration travels with this file to every package that type-checks it.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./s3rver.d.ts" />
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** A request as the test server received it. */
export interface LoggedRequest {
  method: string;
  /** Path and query, e.g. `/bucket/key?partNumber=2&uploadId=…`. */
  url: string;
  headers: IncomingMessage['headers'];
  /** What answered: s3rver, an injected fault, or the server's own AbortMultipartUpload. */
  answeredBy: 's3rver' | 'fault' | 'abort';
}

/** A failure to inject: requests that match get this reply instead of reaching s3rver. */
export interface Fault {
  /** HTTP method to match; any when absent. */
  method?: string;
  /** Substring of path and query to match, e.g. `partNumber=2`; any when absent. */
  urlIncludes?: string;
  /** Reply status, e.g. 503. */
  status: number;
  /** S3 error code of the XML body, e.g. `SlowDown`. */
  code: string;
  /** How many matching requests fail; Infinity for all. */
  times: number;
}

/** A running test server; see {@link startTestS3Server}. */
export interface TestS3Server {
  /** `http://127.0.0.1:<port>`: the logging, fault-injecting front. */
  endpoint: string;
  /** A bucket created for this server. */
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every request received, in order. */
  requests: LoggedRequest[];
  /** Faults to inject; tests push and clear these. */
  faults: Fault[];
  /** Stops both servers and removes the data folder. */
  close(): Promise<void>;
}

/**
 * Starts s3rver on 127.0.0.1 (a free port, a temporary folder), fronted by a small proxy on
 * 127.0.0.1 that logs requests and injects faults, and creates a bucket through the S3 API.
 * The proxy fills three gaps of s3rver 3.7: it answers AbortMultipartUpload (DELETE
 * `?uploadId=`) itself with 204; it pages ListObjectsV2 itself (see {@link pageListing}),
 * because s3rver's continuation tokens use DES, which Node's OpenSSL 3 no longer has (every
 * truncated listing fails with a 500); and it turns a range of an empty object into 416 as S3
 * does (s3rver promises one byte and never sends it). Nothing leaves the loopback interface.
 */
export async function startTestS3Server(): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'crawler-s3rver-'));
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const { port: backendPort } = await s3rver.run();

  const requests: LoggedRequest[] = [];
  const faults: Fault[] = [];
  const proxy = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const fault = faults.find(
      (f) =>
        f.times > 0 &&
        (f.method === undefined || f.method === method) &&
        (f.urlIncludes === undefined || url.includes(f.urlIncludes)),
    );
    if (fault) {
      fault.times--;
      requests.push({ method, url, headers: req.headers, answeredBy: 'fault' });
      reply(req, res, fault.status, errorXml(fault.code), method);
    } else if (method === 'DELETE' && /[?&]uploadId=/.test(url)) {
      requests.push({ method, url, headers: req.headers, answeredBy: 'abort' });
      reply(req, res, 204, '', method);
    } else {
      requests.push({ method, url, headers: req.headers, answeredBy: 's3rver' });
      const listing = method === 'GET' ? listRequest(url) : null;
      if (listing) forward(req, res, backendPort, listing);
      else forward(req, res, backendPort);
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  const bucket = `test-${randomBytes(4).toString('hex')}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const admin = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  admin.destroy();

  return {
    endpoint,
    bucket,
    ...credentials,
    requests,
    faults,
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await s3rver.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function errorXml(code: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>answered by the test server</Message></Error>`;
}

/** Answers after draining the request body (the client may still be sending it). */
function reply(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string,
  method: string,
): void {
  req.resume();
  req.on('end', () => {
    res.writeHead(status, {
      'content-type': 'application/xml',
      'content-length': method === 'HEAD' ? 0 : Buffer.byteLength(body),
    });
    res.end(method === 'HEAD' ? undefined : body);
  });
}

/** A ListObjectsV2 request: the path to send s3rver, and the page the client asked for. */
interface ListRequest {
  /** The same listing without paging parameters (s3rver then returns up to 1,000 keys whole). */
  path: string;
  /** Keys to skip: our continuation token is this number, in base64. */
  skip: number;
  maxKeys: number;
  token: string | undefined;
}

/** The ListObjectsV2 parameters of a bucket-level GET, or null for any other request. */
function listRequest(url: string): ListRequest | null {
  const parsed = new URL(url, 'http://proxy');
  const query = parsed.searchParams;
  if (query.get('list-type') !== '2' || parsed.pathname.split('/').filter(Boolean).length !== 1) {
    return null;
  }
  const token = query.get('continuation-token') ?? undefined;
  const skip = token === undefined ? 0 : Number(Buffer.from(token, 'base64').toString());
  const maxKeys = Number(query.get('max-keys') ?? 1000);
  query.delete('continuation-token');
  query.delete('max-keys');
  // s3rver leaves these out of its signature check, so the request stays valid.
  return { path: `${parsed.pathname}?${query.toString()}`, skip, maxKeys, token };
}

/** The text of an XML element's content with entities decoded. */
function xmlText(escaped: string): string {
  return escaped.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (e.startsWith('#x') || e.startsWith('#X'))
      return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return named[e.toLowerCase()] ?? '';
  });
}

/** UTF-8 bytes of the key of one `<Contents>` entry. */
function keyBytes(entry: string): Buffer {
  return Buffer.from(xmlText(/<Key>([\s\S]*?)<\/Key>/.exec(entry)?.[1] ?? ''));
}

/**
 * Cuts one page out of s3rver's whole listing: `maxKeys` entries after `skip`, with
 * IsTruncated and a NextContinuationToken as S3 sends them. Entries are sorted by the UTF-8
 * bytes of their keys, as S3 lists them (s3rver lists folder by folder: `a/b` before `a-c`).
 */
function pageListing(xml: string, list: ListRequest): string {
  const entries = (xml.match(/<Contents>[\s\S]*?<\/Contents>/g) ?? []).sort((a, b) =>
    Buffer.compare(keyBytes(a), keyBytes(b)),
  );
  const page = entries.slice(list.skip, list.skip + list.maxKeys);
  const next = list.skip + page.length;
  const truncated = next < entries.length;
  const tag = (name: string) => new RegExp(`<${name}>[\\s\\S]*?</${name}>`).exec(xml)?.[0] ?? '';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    tag('Name'),
    tag('Prefix'),
    `<KeyCount>${page.length}</KeyCount><MaxKeys>${list.maxKeys}</MaxKeys>`,
    `<IsTruncated>${truncated}</IsTruncated>`,
    list.token !== undefined ? `<ContinuationToken>${list.token}</ContinuationToken>` : '',
    truncated
      ? `<NextContinuationToken>${Buffer.from(String(next)).toString('base64')}</NextContinuationToken>`
      : '',
    ...page,
    '</ListBucketResult>',
  ].join('');
}

/**
 * Passes the request to s3rver (the Host header unchanged, so signatures still match). A
 * listing is sent without its paging parameters and paged here.
 */
function forward(
  req: IncomingMessage,
  res: ServerResponse,
  port: number,
  list?: ListRequest,
): void {
  const headers = { ...req.headers };
  delete headers.expect; // this proxy already answered 100-continue
  const upstream = request(
    { host: '127.0.0.1', port, method: req.method, path: list?.path ?? req.url, headers },
    (answer) => {
      if (/\/0$/.test(answer.headers['content-range'] ?? '')) {
        // s3rver answers a range of an empty object with Content-Length 1 and no body, so the
        // client waits forever; S3 says 416 InvalidRange.
        answer.destroy();
        const body = errorXml('InvalidRange');
        res.writeHead(416, {
          'content-type': 'application/xml',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
        return;
      }
      if (list === undefined || answer.statusCode !== 200) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = pageListing(Buffer.concat(chunks).toString('utf8'), list);
        res.writeHead(200, {
          'content-type': 'application/xml',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      });
    },
  );
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}
