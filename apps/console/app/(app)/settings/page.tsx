import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { SettingsForm } from '../../../components/settings/settings-form';
import { ConsolePage } from '../../../components/ui/console-page';
import { settle } from '../../../lib/api/api-failure';
import { serverApi } from '../../../lib/server/server-api';

export const metadata: Metadata = { title: 'Settings' };

async function Settings(): Promise<ReactNode> {
  return <SettingsForm initial={await settle((await serverApi()).settings.get.query())} />;
}

export default function SettingsPage(): ReactNode {
  return (
    <ConsolePage title="Settings" lead="How the whole crawl behaves." loading="settings">
      <Settings />
    </ConsolePage>
  );
}
