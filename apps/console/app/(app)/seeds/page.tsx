import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { SeedsWorkspace } from '../../../components/seeds/seeds-workspace';
import { ConsolePage } from '../../../components/ui/console-page';
import { settle } from '../../../lib/api/api-failure';
import { SEED_LISTS, SEEDS_PAGE } from '../../../lib/api/page-inputs';
import { serverApi } from '../../../lib/server/server-api';

export const metadata: Metadata = { title: 'Seeds' };

async function Workspace(): Promise<ReactNode> {
  const api = await serverApi();
  const [lists, seeds] = await Promise.all([
    settle(api.seeds.lists.query(SEED_LISTS)),
    settle(api.seeds.list.query(SEEDS_PAGE)),
  ]);
  return <SeedsWorkspace initial={{ lists, seeds }} />;
}

export default function SeedsPage(): ReactNode {
  return (
    <ConsolePage title="Seeds" lead="Start the crawl from URLs and sitemaps." loading="seeds">
      <Workspace />
    </ConsolePage>
  );
}
