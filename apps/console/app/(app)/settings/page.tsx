import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { SettingsForm } from '../../../components/settings/settings-form';
import { PageHead } from '../../../components/ui/page-head';

export const metadata: Metadata = { title: 'Settings' };

export default function SettingsPage(): ReactNode {
  return (
    <>
      <PageHead title="Settings">How the whole crawl behaves.</PageHead>
      <SettingsForm />
    </>
  );
}
