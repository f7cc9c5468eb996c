'use client';

import { useEffect, type ReactNode } from 'react';
import { query } from '../../lib/client/api';
import { useCan } from '../../lib/client/session-context';
import { useApi } from '../../lib/client/use-api';
import type { HostAuditItem } from '../../lib/types/hosts';
import type { AuditItem } from '../../lib/types/admin';
import { AuditTable } from '../audit/audit-table';
import { ErrorBox } from '../ui/error-box';
import { Panel } from '../ui/panel';

function fromHostAudit(items: HostAuditItem[], host: string): AuditItem[] {
  return items.map((a, i) => ({
    id: `${a.at}-${i}`,
    at: a.at,
    actor: { label: typeof a.actor === 'string' ? a.actor : (a.actor?.label ?? '') },
    action: a.action,
    target: host,
    before: a.before,
    after: a.after,
  }));
}

/** Who changed this host's policy, and how (from the host answer or the audit log). */
export function HostAudit(props: {
  host: string;
  embedded?: HostAuditItem[];
  version: number;
}): ReactNode {
  const operator = useCan('operator');
  const needsLog = props.embedded === undefined && operator;
  const log = useApi<{ items: AuditItem[] }>(
    needsLog ? `/audit${query({ target: props.host, limit: 20 })}` : null,
  );
  const { refresh } = log;
  useEffect(() => {
    if (props.version > 0) refresh();
  }, [props.version, refresh]);
  const items = props.embedded
    ? fromHostAudit(props.embedded, props.host)
    : (log.data?.items ?? []);
  return (
    <Panel title="Policy changes">
      {props.embedded === undefined && !operator ? (
        <p className="muted">The audit log names accounts, so operators and admins see it.</p>
      ) : log.error ? (
        <ErrorBox title="Cannot load the audit" error={log.error} />
      ) : (
        <AuditTable items={items} empty="No changes to this host’s policy yet." />
      )}
    </Panel>
  );
}
