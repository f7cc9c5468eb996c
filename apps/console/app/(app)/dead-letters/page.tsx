import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { DeadLetters } from '../../../components/dead-letters/dead-letters';
import { ConsolePage } from '../../../components/ui/console-page';
import { settle } from '../../../lib/api/api-failure';
import { DEAD_LETTERS } from '../../../lib/api/page-inputs';
import { serverApi } from '../../../lib/server/server-api';

export const metadata: Metadata = { title: 'Dead letters' };

async function FirstPage(): Promise<ReactNode> {
  const list = await settle((await serverApi()).deadLetters.list.query(DEAD_LETTERS));
  return <DeadLetters initial={list} />;
}

export default function DeadLettersPage(): ReactNode {
  return (
    <ConsolePage
      title="Dead letters"
      lead="URLs that kept failing, with their last error."
      loading="dead letters"
    >
      <FirstPage />
    </ConsolePage>
  );
}
