import type { ReactNode } from 'react';
import { ROLES, type Role } from '../../lib/roles';

/** The role picker of a form that creates an account or a token (field `role`). */
export function RoleField(props: {
  defaultValue: Role;
  /** The roles offered, lowest first; default every role. */
  roles?: readonly Role[];
}): ReactNode {
  return (
    <label className="field">
      <span>Role</span>
      <select name="role" defaultValue={props.defaultValue}>
        {(props.roles ?? ROLES).map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
    </label>
  );
}
