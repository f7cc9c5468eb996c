import { Counter, type Registry } from 'prom-client';

/** What the metrics read of an ingest (a BatchIngest): the rows it stored and refused so far. */
export interface IngestCounts {
  readonly ingested: number;
  readonly rejected: number;
}

/**
 * Rows the ingests stored into ClickHouse (and refused), by table: `fetches` from the telemetry
 * stream, `pages` from the feed. Read from the ingests' own counters when Prometheus scrapes,
 * so the ingest code carries no metrics; rows/s is `rate(crawler_ingest_rows_total[…])`.
 */
export function registerIngestMetrics(
  registry: Registry,
  ingests: Readonly<Record<string, IngestCounts>>,
): void {
  const mirror = (name: string, help: string, count: (i: IngestCounts) => number) => {
    const seen = new Map<string, number>();
    new Counter({
      name,
      help,
      labelNames: ['table'],
      registers: [registry],
      collect() {
        for (const [table, ingest] of Object.entries(ingests)) {
          const now = count(ingest);
          this.inc({ table }, Math.max(0, now - (seen.get(table) ?? 0)));
          seen.set(table, now);
        }
      },
    });
  };
  mirror(
    'crawler_ingest_rows_total',
    'Rows the coordinator inserted into ClickHouse, by table',
    (i) => i.ingested,
  );
  mirror(
    'crawler_ingest_rejected_rows_total',
    'Rows refused (schema or table) and dropped, by table',
    (i) => i.rejected,
  );
}
