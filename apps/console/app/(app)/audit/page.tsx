import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { AuditLog } from '../../../components/audit/audit-log';
import { PageHead } from '../../../components/ui/page-head';

export const metadata: Metadata = { title: 'Audit log' };

export default function AuditPage(): ReactNode {
  return (
    <>
      <PageHead title="Audit log">Every change: who, what, before and after.</PageHead>
      <AuditLog />
    </>
  );
}
