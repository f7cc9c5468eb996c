import type { IncomingMessage, ServerResponse } from 'node:http';
import { getTRPCErrorShape, TRPCError, transformTRPCResponse } from '@trpc/server';
import { AppError } from './app-error';
import type { AppRouter } from './router';

/**
 * The procedure calls of a tRPC request under `basePath`: those of a batch
 * (`/trpc/a,b,c?batch=1`, its path read as tRPC reads it: URL-decoded, split at commas), else 1.
 */
export function trpcCallsOf(url: string, basePath: string): number {
  const parsed = new URL(url, 'http://coordinator');
  if (parsed.searchParams.get('batch') !== '1') return 1;
  const path = parsed.pathname.slice(basePath.length);
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return 1; // tRPC refuses it itself (400, invalid URL encoding)
  }
  return decoded.split(',').length;
}

/**
 * The standalone adapter's middleware that refuses a batch of more than `max` calls with
 * 413 BATCH_TOO_LARGE, in the router's own error shape (`data.appCode`), before any of it is
 * read or run. tRPC's `maxBatchSize` (set to the same number) would refuse it too, but with a
 * bare 400 "Batch call exceeds maximum size" that names neither the limit nor what to do.
 */
export function limitTrpcBatches(router: AppRouter, basePath: string, max: number) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const calls = trpcCallsOf(req.url ?? '/', basePath);
    if (calls <= max) return next();
    const app = new AppError(
      'BATCH_TOO_LARGE',
      `a batch of ${calls} calls is more than the ${max} this coordinator takes in one request (TRPC_MAX_BATCH_SIZE); send at most ${max} (httpBatchLink's maxItems)`,
      { calls, max_batch_size: max },
    );
    const error = new TRPCError({ code: app.trpcCode, message: app.message, cause: app });
    const shape = getTRPCErrorShape({
      config: router._def._config,
      error,
      type: 'unknown',
      path: undefined,
      input: undefined,
      ctx: undefined,
    });
    const text = JSON.stringify(transformTRPCResponse(router._def._config, { error: shape }));
    res.writeHead(app.httpStatus, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      // The body of a refused POST is not read: the connection cannot be used again.
      ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { connection: 'close' }),
    });
    res.end(text);
  };
}
