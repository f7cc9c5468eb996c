import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { ConsolePage } from '../../../components/ui/console-page';
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
    <ConsolePage
      title="URL inspector"
      lead="Why was this URL fetched, or not? Its fetches, captures and parsed page."
      loading="the URL’s history"
      suspenseKey={url}
    >
      <Inspector url={url} />
    </ConsolePage>
  );
}
