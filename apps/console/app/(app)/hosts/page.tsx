import type { Metadata } from 'next';
import { Suspense, type ReactNode } from 'react';
import { HostSearch } from '../../../components/hosts/host-search';
import { Loading } from '../../../components/ui/loading';
import { PageHead } from '../../../components/ui/page-head';
import { settle } from '../../../lib/api/api-failure';
import { HOST_SEARCH } from '../../../lib/api/page-inputs';
import { serverApi } from '../../../lib/server/server-api';

export const metadata: Metadata = { title: 'Hosts' };

async function FirstHosts(): Promise<ReactNode> {
  const list = await settle((await serverApi()).hosts.list.query(HOST_SEARCH));
  return <HostSearch initial={list} />;
}

export default function HostsPage(): ReactNode {
  return (
    <>
      <PageHead title="Hosts">
        Find a host to see its queue, robots.txt, fetches and policy.
      </PageHead>
      <Suspense fallback={<Loading what="hosts" />}>
        <FirstHosts />
      </Suspense>
    </>
  );
}
