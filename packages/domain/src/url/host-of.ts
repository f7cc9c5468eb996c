import { domainToASCII } from 'node:url';

/** `scheme://host[:port]` where host is already lowercase ASCII (the normalized form). */
const FAST_HOST = /^[a-z][a-z0-9+.-]*:\/\/([a-z0-9._-]+|\[[0-9a-f:.]+\])(?::\d*)?(?:[/?#]|$)/;

/**
 * The politeness key of a URL: its lowercase punycode hostname (no port, no trailing dot).
 * Meant for URLs from `normalizeUrl` (a string scan, no parsing); other absolute URLs are
 * parsed and their host converted. Returns `''` when there is no host. Never throws.
 */
export function hostOf(normalizedUrl: string): string {
  const fast = FAST_HOST.exec(normalizedUrl);
  if (fast !== null) return stripTrailingDot(fast[1] ?? '');
  try {
    const hostname = new URL(normalizedUrl).hostname;
    if (hostname.startsWith('[')) return hostname;
    return stripTrailingDot(domainToASCII(hostname) || hostname.toLowerCase());
  } catch {
    return '';
  }
}

function stripTrailingDot(host: string): string {
  return host.endsWith('.') ? host.replace(/\.+$/, '') : host;
}
