import type { ReactNode } from 'react';

/** A timestamp in the viewer's local time, with the exact ISO value on hover. */
export function Time({ at }: { at: string | number | null | undefined }): ReactNode {
  if (at === null || at === undefined || at === '') return <span className="muted">—</span>;
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return <span>{String(at)}</span>;
  return (
    <time dateTime={d.toISOString()} title={d.toISOString()}>
      {d.toLocaleString('en-GB', { hour12: false })}
    </time>
  );
}
