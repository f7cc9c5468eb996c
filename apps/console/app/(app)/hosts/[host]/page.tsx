import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { HostView } from '../../../../components/hosts/host-view';

type Props = { params: Promise<{ host: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: decodeURIComponent((await params).host) };
}

export default async function HostPage({ params }: Props): Promise<ReactNode> {
  const host = decodeURIComponent((await params).host);
  return <HostView host={host} />;
}
