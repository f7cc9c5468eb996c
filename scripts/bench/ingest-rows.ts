// Synthetic fetch rows of `npm run bench -- ingest`, the same for its producer and its store path.
import type { TelemetryRow } from '@crawler/domain/messages';

/** Fetch row `i` as an agent reports it: 5,000 hosts, a mix of statuses, a WARC record per 2xx. */
export function telemetryRow(i: number, hosts: number, now: number): TelemetryRow {
  const status = [200, 200, 200, 200, 301, 304, 404, 503, 0][i % 9] ?? 200;
  const host = `host${i % hosts}.example.com`;
  const archived = status === 200 || status === 404 || status === 503;
  return {
    url_fp: hex8(mix(i)) + hex8(i),
    url: `https://${host}/section/${i % 97}/article-${i}.html`,
    host,
    fetched_at: now - (i % 3_000_000),
    status,
    error_code: status === 0 ? 'timeout' : '',
    bytes: status === 0 ? 0 : 20_000 + (i % 5000),
    fetch_ms: 50 + (i % 400),
    content_type: status === 0 ? '' : 'text/html',
    content_hash: archived ? (hex8(mix(i + 1)) + hex8(i)).repeat(4) : '',
    depth: i % 8,
    agent_id: `agent-${i % 4}`,
    warc_key: archived
      ? `crawl/2026-11-30/agent-${i % 4}/${String(i >> 16).padStart(5, '0')}.warc.gz`
      : '',
    warc_offset: archived ? i * 7000 : 0,
    warc_length: archived ? 6500 : 0,
    redirect_to: status === 301 ? `https://${host}/moved/${i}` : '',
    record_type: archived ? 'response' : '',
    record_id: archived ? `<urn:uuid:${randomUuidLike(i)}>` : '',
    payload_digest: archived ? 'sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ' : '',
    etag: archived ? `"${i.toString(36)}"` : '',
    last_modified: '',
    change: status === 304 ? 'unchanged' : archived ? (i % 3 === 0 ? 'changed' : 'new') : '',
    duplicate_of: '',
    simhash: archived ? hex8(mix(i + 7)) + hex8(mix(i + 11)) : '',
  };
}

/** A 32-bit integer hash: fingerprints that look random, cheap enough not to weigh on the bench. */
function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  return (x ^ (x >>> 16)) >>> 0;
}

function hex8(x: number): string {
  return x.toString(16).padStart(8, '0');
}

function randomUuidLike(i: number): string {
  const h = i.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${h.slice(-12)}`;
}
