import type { ReactNode } from 'react';
import { Overview } from '../../components/overview/overview';
import { PageHead } from '../../components/ui/page-head';

export default function OverviewPage(): ReactNode {
  return (
    <>
      <PageHead title="Crawl overview">
        Crawl health, live: throughput, errors, latency, frontier and fleet.
      </PageHead>
      <Overview />
    </>
  );
}
