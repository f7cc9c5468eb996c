import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { workerFile } from '@crawler/adapters/workers';
import { CrawlerError, type RetryClass } from '@crawler/domain/errors';
import type { ParsedPage, ParsePageInput } from './parse-page';
import type { PageTaskInput, PageTaskResult } from './page-task';
import type { ArchiveTaskInput, ArchiveTaskResult } from '../archive/archive-task';
import type { ParsedSitemap } from '@crawler/domain/sitemaps';
import type { SitemapTaskInput } from './sitemap-task';
import type { RobotsTaskInput } from './robots-task';

/** The worker's exports the pool runs (parse-worker.ts). */
type TaskName = 'default' | 'pageTask' | 'archiveTask' | 'sitemapTask' | 'robotsTask';

/** Why a parse failed, as recorded (`parse_<reason>` is a page's error code). */
export type ParsePoolErrorCode =
  /** The pool was closed before the page was parsed. */
  | 'closed'
  /** The parse ran past `taskTimeoutMs`; its worker was terminated and replaced. */
  | 'timeout'
  /** The worker died under the parse (out of memory, crash); it was replaced. */
  | 'worker_failed';

/**
 * Why {@link ParsePool.parse} gave no page. Branch on `code` (`PARSE_POOL_TIMEOUT`, …) or
 * `reason`, never on the message. A closed pool's page may be parsed by the next agent.
 */
export class ParsePoolError extends CrawlerError {
  override readonly name = 'ParsePoolError';
  readonly code: `PARSE_POOL_${Uppercase<ParsePoolErrorCode>}`;
  readonly retry: RetryClass;

  constructor(
    readonly reason: ParsePoolErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = `PARSE_POOL_${reason.toUpperCase() as Uppercase<ParsePoolErrorCode>}`;
    this.retry = reason === 'closed' ? 'retry' : 'give_up';
  }
}

/** Options of {@link createParsePool}. */
export interface ParsePoolOptions {
  /** Worker threads, all started at once (default `max(1, availableParallelism() − 1)`). */
  threads?: number;
  /** Writes a V8 CPU profile of each worker thread into this folder when it exits (profiling). */
  cpuProfileDir?: string;
  /**
   * Longest one parse may run, in milliseconds, counted from when a thread takes it (time
   * queued does not count); past it the worker is terminated and replaced (default 30,000).
   */
  taskTimeoutMs?: number;
  /**
   * Tasks handed to each thread at once (default 32): the thread finds its next page waiting in
   * its queue instead of idling until the event loop has taken the last result and sent another.
   * A task's time limit counts from when it is handed over.
   */
  tasksPerThread?: number;
  /** Old-generation heap limit of each worker, in MB (default 1,024). */
  maxHeapMb?: number;
  /** Called with a worker error that belongs to no parse (default: ignored). */
  onWorkerError?: (err: unknown) => void;
}

/** Options of one {@link ParsePool.parse} call. */
export interface ParseCallOptions {
  /** This parse's time limit, in milliseconds (default: the pool's `taskTimeoutMs`). */
  timeoutMs?: number;
  /**
   * Move the body's memory to the worker instead of copying it (default true). The caller's
   * `body` is then detached — zero length — once `parse` returns. Only a view that spans its
   * whole `ArrayBuffer` moves (Node's pooled small Buffers are copied).
   */
  transfer?: boolean;
}

/** A pool of worker threads running `parsePage`, off the event loop. */
export interface ParsePool {
  /**
   * Parses one page in a worker: the result equals `parsePage(input)` in-process. Rejects with
   * a {@link ParsePoolError} only (`closed`, `timeout`, `worker_failed`); a moved body is gone
   * either way, so keep a copy (or pass `transfer: false`) to retry in-process.
   */
  parse(input: ParsePageInput, options?: ParseCallOptions): Promise<ParsedPage>;
  /**
   * Runs `pageTask` in a worker (WARC records, parse, links, feed text of one page), with the
   * same slots, time limit and errors as {@link parse}. The body is not moved: the caller keeps
   * it, to archive the page itself if the worker fails. A body in a SharedArrayBuffer (the HTTP
   * client's are) is shared with the worker, any other copied.
   */
  page(input: PageTaskInput, options?: Omit<ParseCallOptions, 'transfer'>): Promise<PageTaskResult>;
  /**
   * Runs `archiveTask` in a worker (SHA-256 and WARC records of a response that is not parsed:
   * robots.txt, redirects, errors, sitemaps, binaries…), with the same slots, time limit and
   * errors as {@link parse}. The body is kept by the caller, shared or copied as for {@link page}.
   */
  archive(
    input: ArchiveTaskInput,
    options?: Omit<ParseCallOptions, 'transfer'>,
  ): Promise<ArchiveTaskResult>;
  /** Runs `sitemapTask` (parseSitemap of a fetched sitemap document) in a worker, as `archive`. */
  sitemap(
    input: SitemapTaskInput,
    options?: Omit<ParseCallOptions, 'transfer'>,
  ): Promise<ParsedSitemap>;
  /**
   * Runs `robotsTask` (reads a robots.txt body into its rules, encoded by `encodeReadRobots`)
   * in a worker, with the same slots, time limit and errors as {@link parse}.
   */
  robots(input: RobotsTaskInput, options?: Omit<ParseCallOptions, 'transfer'>): Promise<string>;
  /** Parses waiting for a free thread. */
  readonly queued: number;
  /** Tasks handed to a thread now (running or next in its queue). */
  readonly running: number;
  /** Live worker threads (0 after {@link close}). */
  readonly threads: number;
  /**
   * Stops the pool: parses still queued reject with `closed`, running ones finish, then the
   * worker threads are terminated. Idempotent.
   */
  close(): Promise<void>;
}

/** Default worker count: every core but one, which the event loop keeps. */
export function defaultParseThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** The buffer to move for `body`, when moving is possible: a whole, non-shared ArrayBuffer. */
function movableBuffer(body: Uint8Array): ArrayBuffer | null {
  const buffer = body.buffer;
  if (!(buffer instanceof ArrayBuffer)) return null;
  if (body.byteOffset !== 0 || body.byteLength !== buffer.byteLength || buffer.byteLength === 0) {
    return null;
  }
  return buffer;
}

/** True when a task failed because its worker thread died, not because the task threw. */
function workerDied(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_WORKER_');
}

/**
 * Starts a pool of worker threads that run `parsePage`, `pageTask`, `archiveTask`,
 * `sitemapTask` and `robotsTask` (piscina). The pool hands
 * each thread up to `tasksPerThread` tasks and queues the rest in FIFO order, so a task's
 * timeout starts when it is handed to a thread. Workers run the compiled `parse-worker.js` next to the bundle in production and
 * load the TypeScript parser through tsx from source (vitest, `node --import tsx`): see
 * `workerFile` in `@crawler/adapters/workers`.
 */
export function createParsePool(options: ParsePoolOptions = {}): ParsePool {
  const threads = Math.max(1, Math.floor(options.threads ?? defaultParseThreads()));
  const taskTimeoutMs = options.taskTimeoutMs ?? 30_000;
  const tasksPerThread = Math.max(1, Math.floor(options.tasksPerThread ?? 32));
  const slots = threads * tasksPerThread;
  type Input =
    ParsePageInput | PageTaskInput | ArchiveTaskInput | SitemapTaskInput | RobotsTaskInput;
  type Pool = Piscina<
    Input,
    ParsedPage | PageTaskResult | ArchiveTaskResult | ParsedSitemap | string
  >;
  const makePool = (): Pool => {
    const pool: Pool = new Piscina({
      filename: workerFile(import.meta.url, 'parse-worker'),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      concurrentTasksPerWorker: tasksPerThread,
      // The worker needs no flags (compiled, or the shim loads TypeScript by itself); inherited
      // ones (`--input-type`, `--eval`, a second `--import tsx`) would only make the worker's
      // start depend on how Node was run.
      execArgv: options.cpuProfileDir
        ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir]
        : [],
      resourceLimits: {
        maxOldGenerationSizeMb: options.maxHeapMb ?? 1024,
        // V8 would let a worker's young generation grow to 48 MB (16 MB semi-spaces). A parse's
        // garbage dies young either way: measured on 11 kB pages, 4–16 MB semi-spaces parse at
        // the same speed, and the smaller one keeps ~30 MB of nursery out of the agent's RSS.
        maxYoungGenerationSizeMb: 16,
      },
    });
    // A worker that dies is replaced by piscina, and its parse rejects on its own; errors not
    // tied to a parse are reported here instead of crashing the process.
    pool.on('error', (err: unknown) => options.onWorkerError?.(err));
    return pool;
  };
  /**
   * The pool tasks go to. Tasks carry no abort signal: piscina runs an abortable task alone on
   * its worker, which would leave the thread idle between round trips to the event loop. A task
   * past its time limit instead retires the whole pool: a fresh one takes the next tasks, and
   * the old one is destroyed (its worker terminated; the tasks it still held fail as
   * `worker_failed`). Parses are bounded in time, so this is for the pathological page only.
   */
  let piscina = makePool();
  const retire = (pool: Pool, how: 'destroy' | 'drain' = 'destroy'): void => {
    if (piscina !== pool || closed) return;
    piscina = makePool();
    const ended = how === 'destroy' ? pool.destroy() : pool.close();
    ended.catch((err: unknown) => options.onWorkerError?.(err));
  };

  /** Parses waiting for a thread, FIFO; each is handed its slot (true) or refused (false). */
  const waiting: Array<(granted: boolean) => void> = [];
  let running = 0;
  let closed = false;
  let closing: Promise<void> | null = null;

  const acquire = async (): Promise<void> => {
    if (running < slots) {
      running++;
      return;
    }
    const granted = await new Promise<boolean>((resolve) => waiting.push(resolve));
    if (!granted) throw new ParsePoolError('closed', 'parse pool closed');
  };
  /** Hands the finished parse's slot to the next waiting one, or frees it. */
  const release = (): void => {
    const next = waiting.shift();
    if (next) next(true);
    else running--;
  };

  /** Runs one task (`name`: the worker's export) in a thread, within its time limit. */
  const run = async <R>(
    name: TaskName,
    url: string,
    input: Input,
    call: ParseCallOptions,
    buffer: ArrayBuffer | null,
  ): Promise<R> => {
    const timeoutMs = call.timeoutMs ?? taskTimeoutMs;
    const pool = piscina;
    const task = pool.run(input, { name, ...(buffer ? { transferList: [buffer] } : {}) });
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error('time limit'));
      }, timeoutMs);
      timer.unref();
    });
    try {
      return (await Promise.race([task, limit])) as R;
    } catch (err) {
      if (timedOut) {
        task.catch(() => undefined);
        retire(pool);
        throw new ParsePoolError('timeout', `parse of ${url} ran past ${timeoutMs} ms`, {
          cause: err,
        });
      }
      // A worker that died (out of memory, crashed) may still be handed the next task before
      // piscina sees it exit, and that task would fail too: new tasks go to a fresh pool, and
      // the old one finishes what its live threads hold.
      if (workerDied(err)) retire(pool, 'drain');
      throw new ParsePoolError('worker_failed', `parse worker failed on ${url}`, {
        cause: err,
      });
    } finally {
      clearTimeout(timer);
    }
  };

  /** Parses accepted and not yet settled (queued or running): close() waits for them. */
  const accepted = new Set<Promise<unknown>>();

  /** Waits for a slot, runs the task, hands the slot on. */
  const inSlot = async <R>(task: () => Promise<R>): Promise<R> => {
    await acquire();
    try {
      return await task();
    } finally {
      release();
    }
  };
  /** Tracks an accepted task until it settles (close() waits for it). */
  const accept = <R>(task: Promise<R>): Promise<R> => {
    accepted.add(task);
    const forget = (): void => void accepted.delete(task);
    task.then(forget, forget);
    return task;
  };

  /** Accepts one task for a slot, unless the pool is closed. */
  const submit = <R>(
    name: TaskName,
    url: string,
    input: Input,
    call: ParseCallOptions,
    buffer: ArrayBuffer | null = null,
  ): Promise<R> => {
    if (closed) return Promise.reject(new ParsePoolError('closed', 'parse pool closed'));
    return accept(inSlot(() => run<R>(name, url, input, call, buffer)));
  };

  return {
    parse(input, call = {}) {
      const buffer = (call.transfer ?? true) ? movableBuffer(input.body) : null;
      return submit<ParsedPage>('default', input.url, input, call, buffer);
    },
    page: (input, call = {}) => submit('pageTask', input.page.url, input, call),
    archive: (input, call = {}) => submit('archiveTask', input.exchange.url, input, call),
    sitemap: (input, call = {}) =>
      submit('sitemapTask', input.options.sitemapUrl ?? '', input, call),
    robots: (input, call = {}) => submit('robotsTask', input.robotsUrl, input, call),
    get queued() {
      return waiting.length;
    },
    get running() {
      return running;
    },
    get threads() {
      return piscina.threads.length;
    },
    close() {
      if (closing) return closing;
      closed = true;
      for (const refuse of waiting.splice(0)) refuse(false);
      closing = Promise.allSettled([...accepted]).then(() => piscina.close());
      return closing;
    },
  };
}
