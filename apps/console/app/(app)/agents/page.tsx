import type { Metadata } from 'next';
import { Suspense, type ReactNode } from 'react';
import { AgentsTable } from '../../../components/agents/agents-table';
import { ShardMap } from '../../../components/agents/shard-map';
import { Loading } from '../../../components/ui/loading';
import { PageHead } from '../../../components/ui/page-head';
import { settle } from '../../../lib/api/api-failure';
import { serverApi } from '../../../lib/server/server-api';

export const metadata: Metadata = { title: 'Agents and shards' };

async function Fleet(): Promise<ReactNode> {
  const api = await serverApi();
  const [agents, shards] = await Promise.all([
    settle(api.agents.list.query({})),
    settle(api.shards.list.query({})),
  ]);
  return (
    <div className="stack">
      <AgentsTable initial={agents} />
      <ShardMap initial={shards} />
    </div>
  );
}

export default function AgentsPage(): ReactNode {
  return (
    <>
      <PageHead title="Agents and shards">
        Who is alive, what each agent is leasing, and how the frontier is split.
      </PageHead>
      <Suspense fallback={<Loading what="agents" />}>
        <Fleet />
      </Suspense>
    </>
  );
}
