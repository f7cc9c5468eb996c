import type { Metadata } from 'next';
import { Suspense, type ReactNode } from 'react';
import { SeedsWorkspace } from '../../../components/seeds/seeds-workspace';
import { Loading } from '../../../components/ui/loading';
import { PageHead } from '../../../components/ui/page-head';
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
    <>
      <PageHead title="Seeds">Start the crawl from URLs and sitemaps.</PageHead>
      <Suspense fallback={<Loading what="seeds" />}>
        <Workspace />
      </Suspense>
    </>
  );
}
