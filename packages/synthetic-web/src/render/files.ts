/**
 * Non-HTML resources (PDF-ish, PNG, JSON, plain text) and sitemaps.
 */
import { gzipSync } from 'node:zlib';
import type { HostHeader } from '../model/assign.js';
import { lastModifiedMs, revisionOf } from '../model/changes.js';
import type { FileKind, HostPlan, SitemapResource } from '../model/resources.js';
import { mix, Rng } from '../prng.js';
import { originOf } from '../model/realistic.js';
import { paragraph } from './text.js';

/** A 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP438AAAAQBAYDFKhhdAAAAAElFTkSuQmCC',
  'base64',
);

/** Body and Content-Type of a non-HTML file. */
export interface FileBody {
  contentType: string;
  body: Buffer;
  /** An ETag made from what the file is (the sized binaries: no hash of megabytes per request). */
  etag?: string;
}

/** Renders a non-HTML file of a host (stable across cycles). */
export function renderFile(
  seed: number,
  h: HostHeader,
  path: string,
  kind: FileKind,
  bytes?: number,
): FileBody {
  const rng = new Rng(mix(seed, 'file', h.index, path));
  if (bytes !== undefined && (kind === 'pdf' || kind === 'jpg' || kind === 'zip'))
    return sizedBinary(seed, h, path, kind, bytes);
  switch (kind) {
    case 'pdf': {
      const text = paragraph(rng);
      const body =
        `%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n` +
        `2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n% ${text}\ntrailer << /Root 1 0 R >>\n%%EOF\n`;
      return { contentType: 'application/pdf', body: Buffer.from(body, 'latin1') };
    }
    case 'png':
      return { contentType: 'image/png', body: PNG };
    case 'json':
      return {
        contentType: 'application/json',
        body: Buffer.from(
          `${JSON.stringify({ host: h.host, path, summary: paragraph(rng), links: ['/'] }, null, 2)}\n`,
        ),
      };
    case 'jpg':
      return sizedBinary(seed, h, path, kind, 2048);
    case 'zip':
      return sizedBinary(seed, h, path, kind, 2048);
    case 'txt':
      return {
        contentType: 'text/plain; charset=utf-8',
        body: Buffer.from(`${paragraph(rng)}\n\nSee http://${h.host}/ for more.\n`),
      };
  }
}

const BINARY_TYPES = { pdf: 'application/pdf', jpg: 'image/jpeg', zip: 'application/zip' } as const;
const BINARY_MAGIC = {
  pdf: Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
  jpg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]),
  zip: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]),
} as const;
/** Incompressible filler of the binaries: 1 MiB from a fixed generator, made once. */
let noise: Buffer | null = null;
function noiseBlock(): Buffer {
  if (noise === null) {
    const rng = new Rng(mix('binary-noise'));
    noise = Buffer.allocUnsafe(1 << 20);
    for (let i = 0; i < noise.length; i += 4)
      noise.writeUInt32LE(Math.floor(rng.next() * 0x100000000) >>> 0, i);
  }
  return noise;
}

/**
 * A binary of `bytes` bytes (a PDF, JPEG or zip by its magic bytes; incompressible filler after,
 * starting at an offset of its own): the realistic profile's downloads.
 */
function sizedBinary(
  seed: number,
  h: HostHeader,
  path: string,
  kind: 'pdf' | 'jpg' | 'zip',
  bytes: number,
): FileBody {
  const block = noiseBlock();
  const body = Buffer.allocUnsafe(bytes);
  const magic = BINARY_MAGIC[kind];
  magic.copy(body, 0, 0, Math.min(magic.length, bytes));
  let off = mix(seed, 'binary', h.index, path) % block.length;
  for (let at = magic.length; at < bytes;) {
    const n = Math.min(bytes - at, block.length - off);
    block.copy(body, at, off, off + n);
    at += n;
    off = 0;
  }
  const etag = `"${mix(seed, 'binary-etag', h.index, path, bytes).toString(16)}"`;
  return { contentType: BINARY_TYPES[kind], body, etag };
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Renders a sitemap (urlset, index, gzipped urlset, plain-text or deliberately malformed XML).
 * @param pageIdOf maps a listed path key to its page id (for lastmod), or null.
 */
export function renderSitemap(
  seed: number,
  plan: HostPlan,
  sm: SitemapResource,
  port: number,
  cycle: number,
  pageIdOf: (path: string) => number | null,
): FileBody {
  const h = plan.header;
  const abs = (p: string): string => `${originOf(h, port)}${p}`;
  const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const lastmod = (p: string): string => {
    const id = pageIdOf(p);
    if (id === null) return '';
    const rev = revisionOf(seed, h, id, cycle);
    return `<lastmod>${isoDate(lastModifiedMs(seed, h, id, rev))}</lastmod>`;
  };
  const urlset = (): string =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
    sm.entries.map((p) => `  <url><loc>${xmlEscape(abs(p))}</loc>${lastmod(p)}</url>\n`).join('') +
    `</urlset>\n`;
  switch (sm.format) {
    case 'urlset':
    case 'plain-part':
      return { contentType: 'application/xml', body: Buffer.from(urlset()) };
    case 'gzip':
      return { contentType: 'application/gzip', body: gzipSync(urlset()) };
    case 'x-gzip':
      return { contentType: 'application/x-gzip', body: gzipSync(urlset()) };
    case 'index':
      return {
        contentType: 'application/xml',
        body: Buffer.from(
          `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
            sm.entries
              .map(
                (p) =>
                  `  <sitemap><loc>${xmlEscape(abs(p))}</loc><lastmod>2024-06-01</lastmod></sitemap>\n`,
              )
              .join('') +
            `</sitemapindex>\n`,
        ),
      };
    case 'text':
      return {
        contentType: 'text/plain; charset=utf-8',
        body: Buffer.from(sm.entries.map((p) => `${abs(p)}\n`).join('')),
      };
    case 'malformed':
      return {
        contentType: 'application/xml',
        body: Buffer.from(
          `<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
            `<url><loc>${abs('/')}</loc><lastmod>not-a-date</lastmod>\n<url><loc>${abs('/')}&broken</loc></url>\n<urlset`,
        ),
      };
  }
}
