import type { Metadata, Viewport } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Crawl overview · Crawler console', template: '%s · Crawler console' },
  description: 'Live state of the distributed crawler: frontier, fetches and agents.',
};

export const viewport: Viewport = {
  colorScheme: 'light dark',
};

export default function RootLayout({ children }: { children: ReactNode }): ReactNode {
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="app-header">
          <div className="app-header__inner">
            <span className="brand">
              <span className="brand__mark" aria-hidden="true" />
              Crawler console
            </span>
            <nav aria-label="Main">
              <Link className="nav-link" href="/" aria-current="page">
                Overview
              </Link>
            </nav>
          </div>
        </header>
        <main id="main" className="page">
          {children}
        </main>
      </body>
    </html>
  );
}
