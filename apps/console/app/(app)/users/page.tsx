import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { TokenList } from '../../../components/users/token-list';
import { UserList } from '../../../components/users/user-list';
import { PageHead } from '../../../components/ui/page-head';
import { currentSession } from '../../../lib/server/session';

export const metadata: Metadata = { title: 'Users and tokens' };

export default async function UsersPage(): Promise<ReactNode> {
  const session = await currentSession();
  const admin = session.kind === 'signed-in' && session.user.role === 'admin';
  return (
    <>
      <PageHead title="Users and tokens">
        {admin
          ? 'Accounts, their roles, and API tokens.'
          : 'Your API tokens. Admins manage accounts.'}
      </PageHead>
      <div className="stack">
        {admin && <UserList />}
        <TokenList />
      </div>
    </>
  );
}
