import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { LoginForm } from '../../components/login/login-form';
import { currentSession } from '../../lib/server/session';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

export default async function LoginPage(): Promise<ReactNode> {
  const session = await currentSession();
  if (session.kind === 'signed-in') redirect('/');
  return (
    <main id="main" className="login">
      <div className="login__card">
        <h1>
          <span className="brand__mark" aria-hidden="true" /> Crawler console
        </h1>
        <p className="muted">Sign in with your coordinator account.</p>
        <LoginForm />
        <p className="muted login__help">
          First start? <code>npm start</code> wrote the admin’s email and password to{' '}
          <code>data/admin.json</code>.
        </p>
      </div>
    </main>
  );
}
