import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { AgentsTable } from '../../../components/agents/agents-table';
import { ShardMap } from '../../../components/agents/shard-map';
import { ConsolePage } from '../../../components/ui/console-page';
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
    <ConsolePage
      title="Agents and shards"
      lead="Who is alive, what each agent is leasing, and how the frontier is split."
      loading="agents"
    >
      <Fleet />
    </ConsolePage>
  );
}
