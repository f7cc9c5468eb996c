import type { ReactNode } from 'react';
import type { ApiFailure } from '../../lib/client/api';

/** What to do about a failed call, by status and code: every error says how to get unstuck. */
export function whatToDo(error: ApiFailure): string {
  if (error.code === 'NOT_AVAILABLE')
    return 'This part of the console needs a newer coordinator. The rest of the console works.';
  if (error.status === 401) return 'Your session has ended: sign in again.';
  if (error.status === 403)
    return 'Your role does not allow this. Ask an admin for a higher role if you need it.';
  if (error.status === 404) return 'Check the spelling, or pick one from the list.';
  if (error.status === 400 || error.status === 409) return 'Correct the input and try again.';
  if (error.status === 0 || error.status === 502 || error.status === 504)
    return 'Check that the coordinator and the console are running (`npm start`); this page retries.';
  return 'Retry in a moment; if it persists, see the coordinator logs.';
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
      {error.status === 401 && (
        <p>
          <a href="/login">Sign in</a>
        </p>
      )}
      {props.children}
    </div>
  );
}
