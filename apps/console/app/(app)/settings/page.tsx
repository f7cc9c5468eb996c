import type { Metadata } from 'next';
import { Suspense, type ReactNode } from 'react';
import { SettingsForm } from '../../../components/settings/settings-form';
import { Loading } from '../../../components/ui/loading';
import { PageHead } from '../../../components/ui/page-head';
import { settle } from '../../../lib/api/api-failure';
import { serverApi } from '../../../lib/server/server-api';

export const metadata: Metadata = { title: 'Settings' };

async function Settings(): Promise<ReactNode> {
  return <SettingsForm initial={await settle((await serverApi()).settings.get.query())} />;
}

export default function SettingsPage(): ReactNode {
  return (
    <>
      <PageHead title="Settings">How the whole crawl behaves.</PageHead>
      <Suspense fallback={<Loading what="settings" />}>
        <Settings />
      </Suspense>
    </>
  );
}
