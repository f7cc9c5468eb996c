import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { ConsolePage } from '../../../components/ui/console-page';
import { TokenList } from '../../../components/users/token-list';
import { UserList } from '../../../components/users/user-list';
import { settle } from '../../../lib/api/api-failure';
import { TOKENS, USERS } from '../../../lib/api/page-inputs';
import { serverApi } from '../../../lib/server/server-api';
import { currentSession } from '../../../lib/server/session';

export const metadata: Metadata = { title: 'Users and tokens' };

async function Accounts({ admin }: { admin: boolean }): Promise<ReactNode> {
  const api = await serverApi();
  const [users, tokens] = await Promise.all([
    admin ? settle(api.users.list.query(USERS)) : null,
    settle(api.tokens.list.query(TOKENS)),
  ]);
  return (
    <div className="stack">
      {users && <UserList initial={users} />}
      <TokenList initial={tokens} />
    </div>
  );
}

export default async function UsersPage(): Promise<ReactNode> {
  const session = await currentSession();
  const admin = session.kind === 'signed-in' && session.user.role === 'admin';
  return (
    <ConsolePage
      title="Users and tokens"
      lead={
        admin
          ? 'Accounts, their roles, and API tokens.'
          : 'Your API tokens. Admins manage accounts.'
      }
      loading="tokens"
    >
      <Accounts admin={admin} />
    </ConsolePage>
  );
}
