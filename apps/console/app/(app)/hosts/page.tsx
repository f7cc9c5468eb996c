import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { HostSearch } from '../../../components/hosts/host-search';
import { PageHead } from '../../../components/ui/page-head';

export const metadata: Metadata = { title: 'Hosts' };

export default function HostsPage(): ReactNode {
  return (
    <>
      <PageHead title="Hosts">
        Find a host to see its queue, robots.txt, fetches and policy.
      </PageHead>
      <HostSearch />
    </>
  );
}
