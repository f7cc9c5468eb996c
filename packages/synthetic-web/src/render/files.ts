/**
 * Non-HTML resources (PDF-ish, PNG, JSON, plain text) and sitemaps.
 */
import { gzipSync } from 'node:zlib';
import { hostName, type HostHeader } from '../model/assign.js';
import { lastModifiedMs, revisionOf } from '../model/changes.js';
import type { FileKind, HostPlan, SitemapResource } from '../model/resources.js';
import { mix, Rng } from '../prng.js';
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
}

/** Renders a non-HTML file of a host (stable across cycles). */
export function renderFile(seed: number, h: HostHeader, path: string, kind: FileKind): FileBody {
  const rng = new Rng(mix(seed, 'file', h.index, path));
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
    case 'txt':
      return {
        contentType: 'text/plain; charset=utf-8',
        body: Buffer.from(`${paragraph(rng)}\n\nSee http://${h.host}/ for more.\n`),
      };
  }
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
  const abs = (p: string): string => `http://${hostName(h.index)}:${port}${p}`;
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
