/**
 * The resource model of one host: what lives at each canonical path and which links a page
 * carries. The server renders these; the manifest walks them without rendering.
 */
import type { HostHeader } from './assign.js';

/** How a link's href is written in HTML (all resolve to the same canonical target). */
export type LinkVariant =
  | 'root' // /a/b
  | 'relative' // ../x, x (relative to the page directory or its <base href>)
  | 'absolute' // http://host:port/a
  | 'upper-host' // http://S0001.WEB.TEST:port/a
  | 'upper-scheme' // HTTP://host:port/a
  | 'protocol-relative' // //host:port/a
  | 'dots' // /news/../a (dot segments)
  | 'raw'; // `raw` string as is

/** One `<a href>` of a page. */
export interface LinkSpec {
  /** Target host index. */
  host: number;
  /** Target canonical path key (path + sorted query). */
  path: string;
  variant: LinkVariant;
  /** 0 none, 1 utm_source+utm_medium, 2 fbclid, 3 gclid. */
  tracking: 0 | 1 | 2 | 3;
  /** Append a fragment. */
  fragment: boolean;
  /** Write multi-parameter queries in non-sorted order. */
  unsorted: boolean;
  /** Literal href for variant `raw`. */
  raw?: string;
  /** A no-op query pair added to the href (`print=1`); the target stays `path`. */
  noop?: string;
  /** The href carries the render's session id as a path parameter (`;jsessionid=…`). */
  session?: boolean;
}

/** An HTML page. */
export interface PageResource {
  type: 'page';
  /** Stable page id within the host (tree pages 0..pages-1, specials from 10,000). */
  id: number;
  path: string;
  title: string;
  links: LinkSpec[];
  /** `<base href>` directory (absolute path), or null. */
  base: string | null;
  /** Write the base href as an absolute URL rather than a path. */
  baseAbsolute: boolean;
  /** First request per cycle answers 503 with Retry-After: 1. */
  busyOnce: boolean;
}

/** Exact (`near: false`) or near duplicate (one word differs) of another page of the host. */
export interface CopyResource {
  type: 'copy';
  path: string;
  /** Path key of the original page. */
  of: string;
  near: boolean;
}

export interface RedirectResource {
  type: 'redirect';
  path: string;
  status: 301 | 302 | 307 | 308;
  /** Location header: `{port}` is replaced with the port at serve time. */
  location: string;
  target: { host: number; path: string };
}

export interface StatusResource {
  type: 'status';
  path: string;
  status: 404 | 410 | 500;
}

export type FileKind = 'pdf' | 'png' | 'json' | 'txt' | 'jpg' | 'zip';

export interface FileResource {
  type: 'file';
  path: string;
  file: FileKind;
  /** Body size of a binary of the realistic profile (pdf, jpg, zip); absent = the small file. */
  bytes?: number;
}

export type SitemapFormat =
  'urlset' | 'index' | 'gzip' | 'x-gzip' | 'plain-part' | 'text' | 'malformed';

export interface SitemapResource {
  type: 'sitemap';
  path: string;
  format: SitemapFormat;
  /** Path keys listed (pages for urlsets, sitemap paths for the index). */
  entries: string[];
}

export interface RobotsTargetResource {
  type: 'robots-target';
  path: string;
}

export type HostileMode = 'huge' | 'huge-chunked' | 'bomb' | 'trickle' | 'headers' | 'malformed';

export interface HostileResource {
  type: 'hostile';
  path: string;
  mode: HostileMode;
}

export type Resource =
  | PageResource
  | CopyResource
  | RedirectResource
  | StatusResource
  | FileResource
  | SitemapResource
  | RobotsTargetResource
  | HostileResource;

/** Everything one host serves (besides robots.txt and the trap routes). */
export interface HostPlan {
  header: HostHeader;
  /** Children per tree page. */
  branching: number;
  /** Canonical path key -> resource. */
  resources: Map<string, Resource>;
  /** robots.txt Sitemap paths of this host. */
  sitemapPaths: string[];
}

/** Path of the robots.txt redirect target for the `redirect` robots variant. */
export const ROBOTS_REDIRECT_PATH = '/robots/real.txt';
