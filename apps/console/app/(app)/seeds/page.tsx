import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { SeedsWorkspace } from '../../../components/seeds/seeds-workspace';
import { PageHead } from '../../../components/ui/page-head';

export const metadata: Metadata = { title: 'Seeds' };

export default function SeedsPage(): ReactNode {
  return (
    <>
      <PageHead title="Seeds">Start the crawl from URLs and sitemaps.</PageHead>
      <SeedsWorkspace />
    </>
  );
}
