'use client';

import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { formatBytes, formatCount, formatExact, formatPercent, formatRate } from '../lib/format';
import {
  STATUS_CLASSES,
  isCrawlStats,
  isStatsErrorBody,
  type CrawlStats,
  type StatsErrorBody,
} from '../lib/stats-types';

const POLL_MS = 2_000;
const CLIENT_TIMEOUT_MS = 8_000;

type LoadError = Pick<StatsErrorBody['error'], 'message' | 'hint'>;

type FetchResult = { ok: true; stats: CrawlStats } | { ok: false; error: LoadError };

async function loadStats(signal: AbortSignal): Promise<FetchResult> {
  let res: Response;
  try {
    res = await fetch('/api/stats', { cache: 'no-store', signal });
  } catch (err) {
    if (signal.aborted) throw err;
    return {
      ok: false,
      error: {
        message: 'Cannot reach the console server.',
        hint: 'Check that the console (next start) is still running, then reload this page.',
      },
    };
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (res.ok && isCrawlStats(body)) return { ok: true, stats: body };
  if (isStatsErrorBody(body)) return { ok: false, error: body.error };
  return {
    ok: false,
    error: {
      message: `The console answered ${res.status} without stats.`,
      hint: 'See the console server logs.',
    },
  };
}

interface PollState {
  stats: CrawlStats | null;
  error: LoadError | null;
  /** Browser time of the last successful poll. */
  updatedAt: number | null;
}

function useStatsPolling(paused: boolean): PollState & { refresh: () => void; busy: boolean } {
  const [state, setState] = useState<PollState>({ stats: null, error: null, updatedAt: null });
  const [busy, setBusy] = useState(false);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((n) => n + 1), []);
  const inFlight = useRef(false);

  useEffect(() => {
    if (paused) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let controller: AbortController | undefined;
    let stopped = false;

    // A timeout chain rather than setInterval: a slow answer never stacks up requests.
    const poll = async (): Promise<void> => {
      if (stopped) return;
      if (document.visibilityState === 'hidden') {
        timer = setTimeout(() => void poll(), POLL_MS);
        return;
      }
      controller = new AbortController();
      const timeout = setTimeout(() => controller?.abort(), CLIENT_TIMEOUT_MS);
      inFlight.current = true;
      setBusy(true);
      try {
        const result = await loadStats(controller.signal);
        if (stopped) return;
        setState((prev) =>
          result.ok
            ? { stats: result.stats, error: null, updatedAt: Date.now() }
            : { ...prev, error: result.error },
        );
      } catch {
        if (stopped) return;
        setState((prev) => ({
          ...prev,
          error: {
            message: 'The console did not answer in time.',
            hint: 'Check that the console server is running; polling continues.',
          },
        }));
      } finally {
        clearTimeout(timeout);
        inFlight.current = false;
        if (!stopped) {
          setBusy(false);
          timer = setTimeout(() => void poll(), POLL_MS);
        }
      }
    };

    const onVisible = (): void => {
      if (document.visibilityState === 'visible' && !inFlight.current) {
        clearTimeout(timer);
        void poll();
      }
    };

    void poll();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
      document.removeEventListener('visibilitychange', onVisible);
      inFlight.current = false;
    };
  }, [paused, tick]);

  return { ...state, refresh, busy };
}

/** Re-renders every second so "updated 3 s ago" stays true between polls. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(id);
  }, []);
  return now;
}

function ago(then: number, now: number): string {
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 2) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ago` : `${Math.floor(m / 60)} h ago`;
}

function Tile(props: {
  label: string;
  value: string;
  title?: string | undefined;
  detail?: ReactNode;
  tone?: 'default' | 'accent' | 'danger';
}): ReactNode {
  const tone = props.tone ?? 'default';
  return (
    <div className={`tile tile--${tone}`}>
      <dt className="tile__label">{props.label}</dt>
      <dd className="tile__value" title={props.title}>
        {props.value}
      </dd>
      {props.detail !== undefined && <dd className="tile__detail">{props.detail}</dd>}
    </div>
  );
}

function CountTile(props: {
  label: string;
  value: number;
  detail?: ReactNode;
  tone?: 'default' | 'accent' | 'danger';
}): ReactNode {
  const shown = formatCount(props.value);
  const exact = formatExact(props.value);
  return (
    <Tile
      label={props.label}
      value={shown}
      title={shown === exact ? undefined : exact}
      detail={props.detail}
      tone={props.tone}
    />
  );
}

const STATUS_LABELS: Record<(typeof STATUS_CLASSES)[number], string> = {
  '2xx': '2xx success',
  '3xx': '3xx redirect',
  '4xx': '4xx client error',
  '5xx': '5xx server error',
  error: 'Network error',
};

function StatusMixBar({ stats }: { stats: CrawlStats }): ReactNode {
  const mix = stats.fetches.statusMix;
  const total = STATUS_CLASSES.reduce((sum, cls) => sum + mix[cls], 0);
  const summary = STATUS_CLASSES.map(
    (cls) => `${STATUS_LABELS[cls]} ${formatPercent(mix[cls], total)}`,
  ).join(', ');
  return (
    <section className="panel" aria-labelledby="status-mix-title">
      <div className="panel__head">
        <h2 id="status-mix-title">Status mix</h2>
        <span className="muted">{formatExact(total)} responses</span>
      </div>
      {total === 0 ? (
        <div className="mix-bar mix-bar--empty" role="img" aria-label="No fetches yet">
          <span>No fetches yet</span>
        </div>
      ) : (
        <div className="mix-bar" role="img" aria-label={summary}>
          {STATUS_CLASSES.filter((cls) => mix[cls] > 0).map((cls) => (
            <span
              key={cls}
              className={`mix-bar__seg mix--${cls}`}
              style={{ flexGrow: mix[cls] }}
              title={`${STATUS_LABELS[cls]}: ${formatExact(mix[cls])}`}
            />
          ))}
        </div>
      )}
      <ul className="mix-legend">
        {STATUS_CLASSES.map((cls) => (
          <li key={cls}>
            <span className={`swatch mix--${cls}`} aria-hidden="true" />
            <span className="mix-legend__label">{STATUS_LABELS[cls]}</span>
            <span className="mix-legend__value">{formatExact(mix[cls])}</span>
            <span className="mix-legend__pct">{formatPercent(mix[cls], total)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function StatsView({ stats }: { stats: CrawlStats }): ReactNode {
  const { fetches, frontier } = stats;
  return (
    <>
      <section className="group group--full" aria-labelledby="fetching-title">
        <h2 id="fetching-title" className="section-title">
          Fetching
        </h2>
        <dl className="tiles">
          <Tile
            label="Pages / s"
            value={formatRate(fetches.pagesPerSecond)}
            detail="current rate"
            tone="accent"
          />
          <CountTile
            label="Fetched"
            value={fetches.total}
            detail={`${formatExact(fetches.ok)} ok`}
          />
          <CountTile
            label="Errors"
            value={fetches.errors}
            detail={`${formatPercent(fetches.errors, fetches.total)} of fetches`}
            tone={fetches.errors > 0 ? 'danger' : 'default'}
          />
          <Tile
            label="Downloaded"
            value={formatBytes(fetches.bytes)}
            title={`${formatExact(fetches.bytes)} bytes`}
            detail="response bytes"
          />
        </dl>
      </section>

      <StatusMixBar stats={stats} />

      <section className="group group--frontier" aria-labelledby="frontier-title">
        <h2 id="frontier-title" className="section-title">
          Frontier <span className="muted">· {frontier.shards} shards</span>
        </h2>
        <dl className="tiles">
          <CountTile label="Queued URLs" value={frontier.queuedUrls} detail="waiting to fetch" />
          <CountTile label="Hosts" value={frontier.hosts} detail="known to the frontier" />
          <CountTile label="Ready hosts" value={frontier.readyHosts} detail="due for a lease" />
          <CountTile label="Open leases" value={frontier.openLeases} detail="held by agents" />
          <CountTile label="Seen URLs" value={frontier.seenUrls} detail="deduplicated" />
          <CountTile
            label="Dead letters"
            value={frontier.deadLetters}
            detail="gave up after retries"
            tone={frontier.deadLetters > 0 ? 'danger' : 'default'}
          />
        </dl>
      </section>

      <section className="group group--fleet" aria-labelledby="fleet-title">
        <h2 id="fleet-title" className="section-title">
          Fleet
        </h2>
        <dl className="tiles">
          <CountTile label="Seeds" value={stats.seeds.total} detail="configured" />
          <CountTile
            label="Agents alive"
            value={stats.agents.alive}
            detail={stats.agents.alive === 0 ? 'none: start one with npm start' : 'reporting in'}
            tone={stats.agents.alive === 0 ? 'danger' : 'default'}
          />
        </dl>
      </section>
    </>
  );
}

function LoadingView(): ReactNode {
  return (
    <div className="loading" role="status">
      <p className="loading__text">
        <span className="spinner" aria-hidden="true" />
        Loading crawl stats…
      </p>
      <dl className="tiles" aria-hidden="true">
        {Array.from({ length: 8 }, (_, i) => (
          <div key={i} className="tile tile--skeleton">
            <dt className="skeleton skeleton--label" />
            <dd className="skeleton skeleton--value" />
          </div>
        ))}
      </dl>
    </div>
  );
}

/** Renders `backtick` segments of a hint as code: "Start the coordinator: `npm start`". */
function Hint({ text }: { text: string }): ReactNode {
  return text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part));
}

function ErrorBox({ error, stale }: { error: LoadError; stale: boolean }): ReactNode {
  return (
    <div className="error-box" role="alert">
      <h2 className="error-box__title">Cannot load crawl stats</h2>
      <p>{error.message}</p>
      <p className="error-box__hint">
        <strong>What to do:</strong> <Hint text={error.hint} />
      </p>
      <p className="muted">
        {stale
          ? 'The numbers below are the last ones received. Retrying every 2 s.'
          : 'Retrying every 2 s.'}
      </p>
    </div>
  );
}

export function Overview(): ReactNode {
  const [paused, setPaused] = useState(false);
  const { stats, error, updatedAt, refresh, busy } = useStatsPolling(paused);
  const now = useNow();

  const live = !paused && error === null && stats !== null;
  const statusText = paused
    ? 'Paused'
    : error !== null
      ? 'Disconnected'
      : stats === null
        ? 'Connecting…'
        : 'Live';

  return (
    <div className="overview" aria-busy={busy && stats === null}>
      <div className="toolbar">
        <span className={`status-pill status-pill--${live ? 'live' : error ? 'down' : 'idle'}`}>
          <span className="status-pill__dot" aria-hidden="true" />
          {statusText}
        </span>
        <span className="muted toolbar__updated">
          {updatedAt !== null && stats !== null ? (
            <>
              {error !== null ? 'Last update' : 'Updated'} {ago(updatedAt, now)} · coordinator time{' '}
              <time dateTime={stats.generatedAt}>
                {new Date(stats.generatedAt).toLocaleTimeString()}
              </time>
            </>
          ) : (
            'Refreshes every 2 s'
          )}
        </span>
        <span className="toolbar__spacer" />
        <button type="button" className="button" onClick={refresh} disabled={paused}>
          Refresh now
        </button>
        <button
          type="button"
          className="button"
          aria-pressed={paused}
          onClick={() => setPaused((p) => !p)}
        >
          {paused ? 'Resume' : 'Pause'}
        </button>
      </div>

      {error !== null && <ErrorBox error={error} stale={stats !== null} />}
      {stats === null && error === null && <LoadingView />}
      {stats !== null && (
        <div className={error !== null ? 'stats stats--stale' : 'stats'}>
          <StatsView stats={stats} />
        </div>
      )}
    </div>
  );
}
