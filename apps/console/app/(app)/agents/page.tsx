import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { AgentsTable } from '../../../components/agents/agents-table';
import { ShardMap } from '../../../components/agents/shard-map';
import { PageHead } from '../../../components/ui/page-head';

export const metadata: Metadata = { title: 'Agents and shards' };

export default function AgentsPage(): ReactNode {
  return (
    <>
      <PageHead title="Agents and shards">
        Who is alive, what each agent is leasing, and how the frontier is split.
      </PageHead>
      <div className="stack">
        <AgentsTable />
        <ShardMap />
      </div>
    </>
  );
}
