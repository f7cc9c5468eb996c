import type { ReactNode } from 'react';
import type { Action } from '../../lib/client/use-action';
import { ErrorBox } from './error-box';

/** What a component's last change did: its note, or why it was not made. */
export function ActionStatus({ action }: { action: Pick<Action, 'note' | 'error'> }): ReactNode {
  return (
    <>
      {action.note && (
        <p className="notice notice--ok" role="status">
          {action.note}
        </p>
      )}
      {action.error && <ErrorBox title={action.error.title} error={action.error.failure} />}
    </>
  );
}
