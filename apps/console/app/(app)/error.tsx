'use client';

import type { ReactNode } from 'react';

// A page that failed to render: say so, and offer the two things that help.
export default function PageError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}): ReactNode {
  return (
    <div className="error-box" role="alert">
      <h1 className="error-box__title">This page failed to load</h1>
      <p>{error.message || 'An unexpected error occurred.'}</p>
      <p className="error-box__hint">
        <strong>What to do:</strong> try again; if it keeps failing, reload the console and check
        the console server’s log{error.digest ? ` for error ${error.digest}` : ''}.
      </p>
      <button type="button" className="button" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
