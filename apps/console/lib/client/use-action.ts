'use client';

import { useCallback, useState } from 'react';
import { settle, type ApiFailure, type Settled } from '../api/api-failure';

/** A failure to show, under the title that says what was not done. */
export interface ActionError {
  title: string;
  failure: ApiFailure;
}

export interface Action {
  /** True while a call runs: controls are disabled meanwhile. */
  busy: boolean;
  /** What the last call did, said to the user (`role="status"`). */
  note: string | null;
  error: ActionError | null;
  /**
   * Runs one change: clears the last note and error, then shows `done(data)` as the note, or
   * the failure under `failed` (else the component's title). Resolves to what happened.
   */
  run<T>(
    call: () => Promise<T>,
    opts: { done: (data: T) => string | null; failed?: string },
  ): Promise<Settled<T>>;
  /** Shows a failure found before any call (e.g. a field out of range). */
  refuse(failure: ApiFailure, title?: string): void;
}

/** The state of a component's changes (busy, last note, last error); `title` names a failure. */
export function useAction(title: string): Action {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<ActionError | null>(null);
  const refuse = useCallback(
    (failure: ApiFailure, failed?: string) => {
      setNote(null);
      setError({ title: failed ?? title, failure });
    },
    [title],
  );
  const run = useCallback(
    async <T>(
      call: () => Promise<T>,
      opts: { done: (data: T) => string | null; failed?: string },
    ): Promise<Settled<T>> => {
      setBusy(true);
      setNote(null);
      setError(null);
      const r = await settle(call());
      setBusy(false);
      if (r.ok) setNote(opts.done(r.data));
      else refuse(r, opts.failed);
      return r;
    },
    [refuse],
  );
  return { busy, note, error, run, refuse };
}
