import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { NavLinks } from '../../components/layout/nav-links';
import { UserMenu } from '../../components/layout/user-menu';
import { SessionProvider } from '../../lib/client/session-context';
import { currentSession } from '../../lib/server/session';

export const dynamic = 'force-dynamic';

// Every page but sign-in: the coordinator says who is signed in (and with which role) on each
// request, so a disabled account or an ended session is noticed at the next navigation.
export default async function SignedInLayout({
  children,
}: {
  children: ReactNode;
}): Promise<ReactNode> {
  const session = await currentSession();
  if (session.kind === 'signed-out') redirect('/login');
  if (session.kind === 'unavailable')
    return (
      <main id="main" className="page">
        <div className="error-box" role="alert">
          <h1 className="error-box__title">The console cannot reach the coordinator</h1>
          <p>{session.message}</p>
          <p className="error-box__hint">
            <strong>What to do:</strong> start the coordinator (<code>npm start</code>) or set{' '}
            <code>COORDINATOR_URL</code>, then reload this page.
          </p>
        </div>
      </main>
    );
  return (
    <SessionProvider user={session.user}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <div className="app-header__inner">
          <span className="brand">
            <span className="brand__mark" aria-hidden="true" />
            Crawler console
          </span>
          <NavLinks />
          <UserMenu />
        </div>
      </header>
      <main id="main" className="page">
        {children}
      </main>
    </SessionProvider>
  );
}
