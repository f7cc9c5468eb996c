import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { AuditLog } from '../../../components/audit/audit-log';
import { ConsolePage } from '../../../components/ui/console-page';
import { settle } from '../../../lib/api/api-failure';
import { AUDIT_PAGE } from '../../../lib/api/page-inputs';
import { atLeast } from '../../../lib/roles';
import { serverApi } from '../../../lib/server/server-api';
import { currentSession } from '../../../lib/server/session';

export const metadata: Metadata = { title: 'Audit log' };

async function FirstPage(): Promise<ReactNode> {
  const session = await currentSession();
  if (session.kind !== 'signed-in' || !atLeast(session.user.role, 'operator')) return <AuditLog />;
  const page = await settle((await serverApi()).audit.list.query(AUDIT_PAGE));
  return <AuditLog initial={page} />;
}

export default function AuditPage(): ReactNode {
  return (
    <ConsolePage
      title="Audit log"
      lead="Every change: who, what, before and after."
      loading="the audit log"
    >
      <FirstPage />
    </ConsolePage>
  );
}
