import type { FetchRow } from '@crawler/analytics';

/** Hosts the console benches spread their fetch rows over. */
export const HOSTS = 5000;
const STATUSES = [200, 200, 200, 200, 304, 301, 404, 503, 0] as const;

/** Fetch rows spread evenly over the last 24 h, across HOSTS hosts (both console benches). */
export function fetchRows(count: number, offset: number, now: number, total: number): FetchRow[] {
  return Array.from({ length: count }, (_, k) => {
    const i = offset + k;
    const status = STATUSES[i % STATUSES.length]!;
    const host = `host${i % HOSTS}.example.com`;
    return {
      url_fp: ((BigInt(i) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn)
        .toString(16)
        .padStart(16, '0'),
      url: `https://${host}/section/${i % 97}/article-${i}.html`,
      host,
      fetched_at: new Date(now - Math.floor(((total - i) / total) * 86_400_000)),
      status,
      error_code: status === 0 ? 'timeout' : '',
      bytes: 20_000 + (i % 5000),
      fetch_ms: 50 + (i % 900),
      content_type: 'text/html; charset=utf-8',
      content_hash: status === 200 ? (i % 200_000).toString(16).padStart(64, '0') : '',
      depth: i % 8,
      agent_id: `agent-${i % 4}`,
      warc_key: '',
      warc_offset: 0,
      warc_length: 0,
      redirect_to: status === 301 ? `https://${host}/moved/${i}` : '',
      change: i < HOSTS * 97 ? 'new' : i % 3 === 0 ? 'changed' : 'unchanged',
      simhash: (i % 700).toString(16).padStart(16, '0'),
      duplicate_of: i % 50 === 0 ? `https://${host}/section/0/article-0.html` : '',
    };
  });
}
