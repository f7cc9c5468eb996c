import { describe, expect, it } from 'vitest';
import { telemetryRowSchema, type TelemetryRow } from '@crawler/domain/messages';
import { AgentMetrics } from './agent-metrics';
import { serveMetrics } from './serve-metrics';

const row = (over: Partial<TelemetryRow>): TelemetryRow =>
  telemetryRowSchema.parse({
    url_fp: '0123456789abcdef',
    url: 'http://a.test/',
    host: 'a.test',
    fetched_at: Date.now(),
    status: 200,
    error_code: '',
    bytes: 1000,
    fetch_ms: 120,
    content_type: 'text/html',
    content_hash: '',
    depth: 0,
    agent_id: 'a1',
    warc_key: '',
    warc_offset: 0,
    warc_length: 0,
    redirect_to: '',
    ...over,
  });

describe('agent metrics', () => {
  it('derives counters from telemetry rows and serves them over HTTP', async () => {
    let active = 3;
    const m = new AgentMetrics('a1', () => active);
    m.observe(row({}));
    m.observe(row({ status: 503, error_code: 'http_503', bytes: 10 }));
    m.observe(row({ status: 0, error_code: 'total_timeout', bytes: 0 }));
    m.observe(row({ status: 0, error_code: 'robots_denied', bytes: 0 }));
    active = 5;
    const { server, port } = await serveMetrics(m.registry, 0, '127.0.0.1');
    try {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(text).toMatch(/crawler_fetches_total\{status_class="2xx",agent="a1"\} 1/);
      expect(text).toMatch(/crawler_fetches_total\{status_class="5xx",agent="a1"\} 1/);
      expect(text).toMatch(/crawler_fetches_total\{status_class="none",agent="a1"\} 1/);
      expect(text).toMatch(/crawler_fetch_errors_total\{code="robots_denied",agent="a1"\} 1/);
      expect(text).toMatch(/crawler_fetched_bytes_total\{agent="a1"\} 1010/);
      expect(text).toMatch(/crawler_active_leases\{agent="a1"\} 5/);
      expect(text).toMatch(/crawler_fetch_duration_seconds_count\{agent="a1"\} 3/);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      server.close();
    }
  });
});
