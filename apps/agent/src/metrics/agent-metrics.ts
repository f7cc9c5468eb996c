import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TelemetryRow } from '@crawler/shared/messages';

/**
 * The agent's Prometheus metrics. Every fetch passes through one place — its telemetry row — so
 * the metrics are derived from the rows as they are emitted, and cannot disagree with them.
 */
export class AgentMetrics {
  readonly registry = new Registry();
  private readonly fetches: Counter<'status_class'>;
  private readonly errors: Counter<'code'>;
  private readonly bytes: Counter;
  private readonly fetchSeconds: Histogram;

  /** @param activeLeases reads the number of host leases being worked right now */
  constructor(agentId: string, activeLeases: () => number) {
    this.registry.setDefaultLabels({ agent: agentId });
    collectDefaultMetrics({ register: this.registry });
    this.fetches = new Counter({
      name: 'crawler_fetches_total',
      help: 'HTTP fetches by status class (robots-denied URLs are not fetches)',
      labelNames: ['status_class'],
      registers: [this.registry],
    });
    this.errors = new Counter({
      name: 'crawler_fetch_errors_total',
      help: 'Fetches that ended with an error code',
      labelNames: ['code'],
      registers: [this.registry],
    });
    this.bytes = new Counter({
      name: 'crawler_fetched_bytes_total',
      help: 'Body bytes received, after decompression',
      registers: [this.registry],
    });
    this.fetchSeconds = new Histogram({
      name: 'crawler_fetch_duration_seconds',
      help: 'Request start to last body byte',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    new Gauge({
      name: 'crawler_active_leases',
      help: 'Host leases being worked',
      registers: [this.registry],
      collect() {
        this.set(activeLeases());
      },
    });
  }

  /** Counts one telemetry row. */
  observe(row: TelemetryRow): void {
    if (row.error_code === 'robots_denied') {
      this.errors.inc({ code: 'robots_denied' });
      return;
    }
    this.fetches.inc({
      status_class: row.status === 0 ? 'none' : `${Math.floor(row.status / 100)}xx`,
    });
    if (row.error_code) this.errors.inc({ code: row.error_code });
    this.bytes.inc(row.bytes);
    this.fetchSeconds.observe(row.fetch_ms / 1000);
  }
}
