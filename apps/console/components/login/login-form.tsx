'use client';

import { useState, type FormEvent, type ReactNode } from 'react';

/** Email and password, posted to the console's /api/session; says why a sign-in failed. */
export function LoginForm(): ReactNode {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const res = await fetch('/api/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: form.get('email'), password: form.get('password') }),
      });
      if (res.ok) {
        window.location.assign('/');
        return;
      }
      const body = (await res.json().catch(() => null)) as {
        error?: { code?: string; message?: string };
      } | null;
      const retryAfterS = Number(res.headers.get('retry-after'));
      const code = body?.error?.code;
      const retryIn = (fallback: string) => (retryAfterS > 0 ? `${retryAfterS} s` : fallback);
      setError(
        code === 'UNAUTHENTICATED'
          ? 'Email or password is wrong. Check both and try again.'
          : code === 'LOGIN_THROTTLED'
            ? `Too many failed sign-ins. Try again in ${retryIn('a minute')}.`
            : code === 'LOGIN_BUSY'
              ? `Too many sign-ins are being checked right now. Try again in ${retryIn('a few seconds')}.`
              : (body?.error?.message ?? `Sign-in failed (${res.status}).`),
      );
    } catch {
      setError('Cannot reach the console server. Check that it is running, then try again.');
    }
    setBusy(false);
  };

  return (
    <form className="form" onSubmit={(e) => void submit(e)}>
      <label className="field">
        <span>Email</span>
        <input name="email" type="email" autoComplete="username" required autoFocus />
      </label>
      <label className="field">
        <span>Password</span>
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {error !== null && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="button button--primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
