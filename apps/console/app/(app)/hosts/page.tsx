import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { HostSearch } from '../../../components/hosts/host-search';
import { ConsolePage } from '../../../components/ui/console-page';
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
    <ConsolePage
      title="Hosts"
      lead="Find a host to see its queue, robots.txt, fetches and policy."
      loading="hosts"
    >
      <FirstHosts />
    </ConsolePage>
  );
}
