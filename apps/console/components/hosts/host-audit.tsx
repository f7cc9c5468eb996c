import type { ReactNode } from 'react';
import type { HostDetail } from '../../lib/api/router-types';
import { AuditTable } from '../audit/audit-table';
import { Panel } from '../ui/panel';

/** Who changed this host's policy, and how (the host's answer carries its audit entries). */
export function HostAudit(props: { host: string; audit: HostDetail['audit'] }): ReactNode {
  return (
    <Panel title="Policy changes">
      <AuditTable
        items={props.audit.map((a, i) => ({ ...a, id: `${a.at}-${i}`, target: props.host }))}
        empty="No changes to this host’s policy yet."
      />
    </Panel>
  );
}
