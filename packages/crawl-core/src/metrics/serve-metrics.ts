import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/**
 * Serves `GET /metrics` (Prometheus text format) and `GET /healthz` on a port of its own.
 * `/healthz` answers 200 `{"ok":true}` when `health()` says ok, else 503 with what it says
 * (e.g. `{"ok":false,"reason":"warc_write_failed","error":"ENOSPC",…}`).
 */
export async function serveMetrics(
  registry: Registry,
  port: number,
  host = '0.0.0.0',
  health: () => { ok: boolean } = () => ({ ok: true }),
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') {
      const h = health();
      res
        .writeHead(h.ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify(h));
      return;
    }
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * {@link serveMetrics} as a process's settings ask for it: null when `port` is 0 (the
 * `*_METRICS_PORT` settings' "off"; a test that wants any free port calls serveMetrics).
 */
export async function serveMetricsUnlessOff(
  registry: Registry,
  port: number,
  host: string,
  health?: () => { ok: boolean },
): Promise<{ server: Server; port: number } | null> {
  return port > 0 ? serveMetrics(registry, port, host, health) : null;
}
