import type { ReactNode } from 'react';
import type { ApiFailure } from '../../lib/api/api-failure';

/** What to do about a failed call, by its code: every error says how to get unstuck. */
export function whatToDo(error: ApiFailure): string {
  switch (error.code) {
    case 'UNAUTHENTICATED':
      return 'Your session has ended: sign in again.';
    case 'FORBIDDEN':
      return 'Your role does not allow this. Ask an admin for a higher role if you need it.';
    case 'CSRF_REJECTED':
      return 'Reload the console and try again from its own pages.';
    case 'NOT_FOUND':
      return 'Check the spelling, or pick one from the list.';
    case 'BAD_REQUEST':
    case 'CONFLICT':
      return 'Correct the input and try again.';
    case 'CONSOLE_UNREACHABLE':
    case 'COORDINATOR_UNREACHABLE':
    case 'COORDINATOR_TIMEOUT':
      return 'Check that the coordinator and the console are running (`npm start`); this page retries.';
    default:
      return 'Retry in a moment; if it persists, see the coordinator logs.';
  }
}

export function ErrorBox(props: {
  title: string;
  error: ApiFailure;
  children?: ReactNode;
}): ReactNode {
  const { error } = props;
  return (
    <div className="error-box" role="alert">
      <h2 className="error-box__title">{props.title}</h2>
      <p>{error.message}</p>
      {error.fields.length > 0 && (
        <ul>
          {error.fields.map((f) => (
            <li key={f.path}>
              <code>{f.path}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
      <p className="error-box__hint">
        <strong>What to do:</strong> {whatToDo(error)}
      </p>
      {error.code === 'UNAUTHENTICATED' && (
        <p>
          <a href="/login">Sign in</a>
        </p>
      )}
      {props.children}
    </div>
  );
}
