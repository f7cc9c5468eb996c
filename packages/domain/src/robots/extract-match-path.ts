/**
 * The part of a URL robots rules are matched against: path, params and query, without
 * scheme, authority and fragment, always starting with `/` (`/` when there is none). A port
 * of google/robotstxt `GetPathParamsQuery`: a string scan, no URL parsing, so it is fast and
 * tolerates anything. Dot segments of the path (`.`, `..`, also as `%2e`) are then resolved,
 * so `/docs/../private/x` is matched as `/private/x`.
 */
export function extractMatchPath(url: string): string {
  const raw = pathParamsQuery(url);
  const q = raw.indexOf('?');
  if (q < 0) return removeDotSegments(raw);
  return removeDotSegments(raw.slice(0, q)) + raw.slice(q);
}

/** Index of the first '/', '?' or ';' at or after `from`, or -1. */
function firstPathChar(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 47 || c === 63 || c === 59) return i;
  }
  return -1;
}

function pathParamsQuery(url: string): string {
  const searchStart = url.startsWith('//') ? 2 : 0;
  const earlyPath = firstPathChar(url, searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  if (earlyPath >= 0 && earlyPath < protocolEnd) protocolEnd = -1;
  protocolEnd = protocolEnd < 0 ? searchStart : protocolEnd + 3;
  const pathStart = firstPathChar(url, protocolEnd);
  if (pathStart < 0) return '/';
  const hashPos = url.indexOf('#', searchStart);
  if (hashPos >= 0 && hashPos < pathStart) return '/';
  const path = url.slice(pathStart, hashPos < 0 ? url.length : hashPos);
  return path.startsWith('/') ? path : `/${path}`;
}

const HAS_DOT_SEGMENT = /(?:^|\/)(?:\.|%2e)/i;

/**
 * RFC 3986 §5.2.4 remove_dot_segments on an absolute path, treating `%2e` as `.` like the
 * WHATWG URL parser does. `/a/b/../c` → `/a/c`, `/a/..` → `/`, `/..` → `/`.
 */
export function removeDotSegments(path: string): string {
  if (!HAS_DOT_SEGMENT.test(path)) return path;
  const segments = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < segments.length; i++) {
    const seg = segments[i]!.toLowerCase();
    const last = i === segments.length - 1;
    if (seg === '.' || seg === '%2e') {
      if (last) out.push('');
    } else if (seg === '..' || seg === '.%2e' || seg === '%2e.' || seg === '%2e%2e') {
      out.pop();
      if (last) out.push('');
    } else {
      out.push(segments[i]!);
    }
  }
  return `/${out.join('/')}`;
}
