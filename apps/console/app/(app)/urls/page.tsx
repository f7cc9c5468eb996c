import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { PageHead } from '../../../components/ui/page-head';
import { UrlInspector } from '../../../components/urls/url-inspector';

export const metadata: Metadata = { title: 'URL inspector' };

type Props = { searchParams: Promise<{ url?: string | string[] }> };

export default async function UrlsPage({ searchParams }: Props): Promise<ReactNode> {
  const raw = (await searchParams).url;
  const url = (Array.isArray(raw) ? raw[0] : raw) ?? '';
  return (
    <>
      <PageHead title="URL inspector">
        Why was this URL fetched, or not? Its fetches, captures and parsed page.
      </PageHead>
      <UrlInspector key={url} url={url} />
    </>
  );
}
