import type { ReactNode } from 'react';
import { Overview } from './overview';

// The shell is static; the numbers arrive from /api/stats in the browser and refresh every 2 s.
export default function OverviewPage(): ReactNode {
  return (
    <>
      <div className="page-head">
        <h1>Crawl overview</h1>
        <p className="muted">
          Live counts from the coordinator: fetch rate, frontier depth and the agent fleet.
        </p>
      </div>
      <Overview />
    </>
  );
}
