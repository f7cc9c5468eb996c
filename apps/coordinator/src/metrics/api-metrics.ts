import type { IncomingMessage, ServerResponse } from 'node:http';
import { Histogram, type Registry } from 'prom-client';
import { methodLabel } from './api-route';

/** Called by the API server as each request comes in (api/http-server.ts). */
export type ApiObserver = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * API latency: the time from a request's arrival to the end of its answer, by route (see
 * {@link apiRouteLabeller}), method and status class (`2xx`…; `none` when the connection closed
 * before an answer was sent). The request count per route is its `_count`.
 */
export function registerApiMetrics(
  registry: Registry,
  routeOf: (path: string) => string,
): ApiObserver {
  const seconds = new Histogram({
    name: 'crawler_api_request_duration_seconds',
    help: 'Coordinator API requests: arrival to the end of the answer, by route, method and status class',
    labelNames: ['route', 'method', 'status_class'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (req, res) => {
    const end = seconds.startTimer();
    // 'close' comes once the answer is sent, or the connection is gone without one.
    res.once('close', () => {
      end({
        route: routeOf((req.url ?? '/').split('?')[0] ?? '/'),
        method: methodLabel(req.method),
        status_class: res.headersSent ? `${Math.floor(res.statusCode / 100)}xx` : 'none',
      });
    });
  };
}
