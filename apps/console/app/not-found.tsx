import Link from 'next/link';
import type { ReactNode } from 'react';

export default function NotFound(): ReactNode {
  return (
    <main id="main" className="page">
      <div className="empty-state">
        <h1 className="empty-state__title">No such page</h1>
        <p className="muted">
          Check the address, or go to the <Link href="/">overview</Link>.
        </p>
      </div>
    </main>
  );
}
