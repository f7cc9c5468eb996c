'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { apiGet, type ApiFailure } from './api';

export interface ApiState<T> {
  data: T | null;
  error: ApiFailure | null;
  /** True until the first answer (success or failure) arrives. */
  loading: boolean;
  /** Browser time of the last successful answer. */
  updatedAt: number | null;
  refresh: () => void;
}

/**
 * GETs `path` through the console's relay, and again every `pollMs` when given (a timeout
 * chain, so a slow answer never stacks requests; paused while the tab is hidden). A null path
 * loads nothing. The last good data is kept when a later poll fails.
 */
export function useApi<T>(path: string | null, pollMs?: number): ApiState<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((n) => n + 1), []);
  const lastPath = useRef(path);

  useEffect(() => {
    if (path === null) {
      setLoading(false);
      return;
    }
    if (lastPath.current !== path) {
      lastPath.current = path;
      setData(null);
      setError(null);
      setLoading(true);
    }
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<void> => {
      if (stopped) return;
      if (pollMs !== undefined && document.visibilityState === 'hidden') {
        timer = setTimeout(() => void load(), pollMs);
        return;
      }
      const result = await apiGet<T>(path);
      if (stopped) return;
      if (result.ok) {
        setData(result.data);
        setError(null);
        setUpdatedAt(Date.now());
      } else {
        setError(result);
      }
      setLoading(false);
      if (pollMs !== undefined) timer = setTimeout(() => void load(), pollMs);
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [path, pollMs, tick]);

  return { data, error, loading, updatedAt, refresh };
}
