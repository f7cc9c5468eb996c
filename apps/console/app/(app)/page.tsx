import type { ReactNode } from 'react';
import { Overview } from '../../components/overview/overview';
import { ConsolePage } from '../../components/ui/console-page';
import { settle } from '../../lib/api/api-failure';
import { FIRST_WINDOW } from '../../lib/api/page-inputs';
import { serverApi } from '../../lib/server/server-api';

// Each page asks the coordinator for its first data while it renders (one batch), so the
// browser gets the figures with the page instead of asking again once its script has run.
async function LiveOverview(): Promise<ReactNode> {
  const api = await serverApi();
  const [stats, series] = await Promise.all([
    settle(api.stats.get.query()),
    settle(api.stats.series.query(FIRST_WINDOW)),
  ]);
  return <Overview initial={{ stats, series }} />;
}

export default function OverviewPage(): ReactNode {
  return (
    <ConsolePage
      title="Crawl overview"
      lead="Crawl health, live: throughput, errors, latency, frontier and fleet."
      loading="crawl stats"
    >
      <LiveOverview />
    </ConsolePage>
  );
}
