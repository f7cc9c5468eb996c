import type { ReactNode } from 'react';

export function Loading({ what }: { what: string }): ReactNode {
  return (
    <p className="loading__text" role="status">
      <span className="spinner" aria-hidden="true" />
      Loading {what}…
    </p>
  );
}
