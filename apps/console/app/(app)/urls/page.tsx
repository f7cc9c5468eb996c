import type { Metadata } from 'next';
import { Suspense, type ReactNode } from 'react';
import { Loading } from '../../../components/ui/loading';
import { PageHead } from '../../../components/ui/page-head';
import { UrlInspector } from '../../../components/urls/url-inspector';
import { settle } from '../../../lib/api/api-failure';
import { serverApi } from '../../../lib/server/server-api';

export const metadata: Metadata = { title: 'URL inspector' };

type Props = { searchParams: Promise<{ url?: string | string[] }> };

async function Inspector({ url }: { url: string }): Promise<ReactNode> {
  if (!url) return <UrlInspector url="" />;
  const report = await settle((await serverApi()).urls.inspect.query({ url }));
  return <UrlInspector key={url} url={url} initial={report} />;
}

export default async function UrlsPage({ searchParams }: Props): Promise<ReactNode> {
  const raw = (await searchParams).url;
  const url = (Array.isArray(raw) ? raw[0] : raw) ?? '';
  return (
    <>
      <PageHead title="URL inspector">
        Why was this URL fetched, or not? Its fetches, captures and parsed page.
      </PageHead>
      <Suspense key={url} fallback={<Loading what="the URL’s history" />}>
        <Inspector url={url} />
      </Suspense>
    </>
  );
}
