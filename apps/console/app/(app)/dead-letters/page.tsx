import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { DeadLetters } from '../../../components/dead-letters/dead-letters';
import { PageHead } from '../../../components/ui/page-head';

export const metadata: Metadata = { title: 'Dead letters' };

export default function DeadLettersPage(): ReactNode {
  return (
    <>
      <PageHead title="Dead letters">URLs that kept failing, with their last error.</PageHead>
      <DeadLetters />
    </>
  );
}
