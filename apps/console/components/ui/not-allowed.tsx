import type { ReactNode } from 'react';
import type { Role } from '../../lib/roles';

export function NotAllowed({ need }: { need: Role }): ReactNode {
  return (
    <div className="notice" role="note">
      <p>
        This page needs the <strong>{need}</strong> role. Ask an admin if you need access.
      </p>
    </div>
  );
}
