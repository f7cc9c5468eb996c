import type { ReactNode } from 'react';
import type { Role } from '../../lib/roles';

/** Says which role a page (or one part of it: `what`) needs. */
export function NotAllowed({ need, what = 'This page' }: { need: Role; what?: string }): ReactNode {
  return (
    <div className="notice" role="note">
      <p>
        {what} needs the <strong>{need}</strong> role. Ask an admin if you need access.
      </p>
    </div>
  );
}
