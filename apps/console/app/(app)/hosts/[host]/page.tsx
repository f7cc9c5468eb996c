import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense, type ReactNode } from 'react';
import { HostView } from '../../../../components/hosts/host-view';
import { Loading } from '../../../../components/ui/loading';
import { PageHead } from '../../../../components/ui/page-head';
import { settle } from '../../../../lib/api/api-failure';
import { serverApi } from '../../../../lib/server/server-api';

type Props = { params: Promise<{ host: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: decodeURIComponent((await params).host) };
}

async function Host({ host }: { host: string }): Promise<ReactNode> {
  const api = await serverApi();
  const [detail, patterns] = await Promise.all([
    settle(api.hosts.get.query({ host })),
    settle(api.hosts.blockPatterns.query({ host })),
  ]);
  return <HostView key={host} host={host} initial={{ detail, patterns }} />;
}

export default async function HostPage({ params }: Props): Promise<ReactNode> {
  const host = decodeURIComponent((await params).host);
  return (
    <>
      <PageHead title={host}>
        <Link href="/hosts">← All hosts</Link>
      </PageHead>
      <Suspense fallback={<Loading what="the host" />}>
        <Host host={host} />
      </Suspense>
    </>
  );
}
