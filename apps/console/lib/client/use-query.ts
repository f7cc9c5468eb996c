'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { settle, type ApiFailure, type Settled } from '../api/api-failure';

/** A query procedure of the typed client, e.g. `api.hosts.get`. */
export interface QueryProcedure<I, O> {
  query(input: I, opts?: { signal?: AbortSignal }): Promise<O>;
}

export interface QueryState<T> {
  data: T | null;
  error: ApiFailure | null;
  /** True until the first answer (success or failure) arrives. */
  loading: boolean;
  refresh: () => void;
}

/**
 * Calls `procedure` with `input`, and again every `pollMs` when given (a timeout chain, so a
 * slow answer never stacks requests; paused while the tab is hidden). A null input loads
 * nothing; a new input starts over. `initial` is the first answer when the page's server
 * already asked for it: then the first call waits for the first poll. The last good data is
 * kept when a later poll fails.
 */
export function useQuery<I, O>(
  procedure: QueryProcedure<I, O>,
  input: I | null,
  opts: { pollMs?: number; initial?: Settled<O> } = {},
): QueryState<O> {
  const { pollMs, initial } = opts;
  const [data, setData] = useState<O | null>(initial?.ok ? initial.data : null);
  const [error, setError] = useState<ApiFailure | null>(initial?.ok === false ? initial : null);
  const [loading, setLoading] = useState(input !== null && initial === undefined);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((n) => n + 1), []);
  const key = input === null ? null : (JSON.stringify(input) ?? '');
  const lastKey = useRef(key);
  const seeded = useRef(initial !== undefined);
  // The client's procedures are new objects at each render: the latest one is called.
  const latest = useRef({ procedure, input });
  latest.current = { procedure, input };

  useEffect(() => {
    if (key === null) {
      setLoading(false);
      return;
    }
    if (lastKey.current !== key) {
      lastKey.current = key;
      setData(null);
      setError(null);
      setLoading(true);
    }
    const firstWait = seeded.current ? pollMs : 0;
    seeded.current = false;
    if (firstWait === undefined) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<void> => {
      if (pollMs !== undefined && document.visibilityState === 'hidden') {
        timer = setTimeout(() => void load(), pollMs);
        return;
      }
      const { procedure: p, input: i } = latest.current;
      const result = await settle(p.query(i as I, { signal: abort.signal }));
      if (abort.signal.aborted) return;
      if (result.ok) {
        setData(result.data);
        setError(null);
      } else setError(result);
      setLoading(false);
      if (pollMs !== undefined) timer = setTimeout(() => void load(), pollMs);
    };
    if (firstWait === 0) void load();
    else timer = setTimeout(() => void load(), firstWait);
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [key, pollMs, tick]);

  return { data, error, loading, refresh };
}
