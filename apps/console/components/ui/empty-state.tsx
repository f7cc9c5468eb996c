import type { ReactNode } from 'react';

/** A panel for "nothing here yet" that says how to get something here. */
export function EmptyState(props: { title: string; children: ReactNode }): ReactNode {
  return (
    <div className="empty-state">
      <p className="empty-state__title">{props.title}</p>
      <p className="muted">{props.children}</p>
    </div>
  );
}
