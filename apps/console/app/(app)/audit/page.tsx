import type { Metadata } from 'next';
import { Suspense, type ReactNode } from 'react';
import { AuditLog } from '../../../components/audit/audit-log';
import { Loading } from '../../../components/ui/loading';
import { PageHead } from '../../../components/ui/page-head';
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
    <>
      <PageHead title="Audit log">Every change: who, what, before and after.</PageHead>
      <Suspense fallback={<Loading what="the audit log" />}>
        <FirstPage />
      </Suspense>
    </>
  );
}
