'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { useCan } from '../../lib/client/session-context';
import type { Role } from '../../lib/roles';

const LINKS: Array<{ href: string; label: string; need: Role }> = [
  { href: '/', label: 'Overview', need: 'viewer' },
  { href: '/seeds', label: 'Seeds', need: 'viewer' },
  { href: '/hosts', label: 'Hosts', need: 'viewer' },
  { href: '/urls', label: 'URL inspector', need: 'viewer' },
  { href: '/agents', label: 'Agents', need: 'viewer' },
  { href: '/dead-letters', label: 'Dead letters', need: 'viewer' },
  { href: '/audit', label: 'Audit', need: 'operator' },
  { href: '/users', label: 'Users & tokens', need: 'viewer' },
  { href: '/settings', label: 'Settings', need: 'viewer' },
];

function isCurrent(pathname: string, href: string): boolean {
  return href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`);
}

export function NavLinks(): ReactNode {
  const pathname = usePathname();
  const operator = useCan('operator');
  return (
    <nav aria-label="Main" className="nav">
      {LINKS.filter((l) => l.need !== 'operator' || operator).map((l) => (
        <Link
          key={l.href}
          className="nav-link"
          href={l.href}
          aria-current={isCurrent(pathname, l.href) ? 'page' : undefined}
        >
          {l.label}
        </Link>
      ))}
    </nav>
  );
}
