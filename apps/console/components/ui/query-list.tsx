import type { ReactNode } from 'react';
import type { QueryState } from '../../lib/client/use-query';
import { ErrorBox } from './error-box';
import { Loading } from './loading';

/**
 * What a list query shows, the same on every page: a spinner while it loads, its error (`Cannot
 * list <what>`), `empty` (an EmptyState saying how to get items) when it holds none, else
 * `children` given the items (usually a DataTable).
 */
export function QueryList<Item>(props: {
  query: Pick<QueryState<{ items: Item[] }>, 'loading' | 'error' | 'data'>;
  /** What the list holds, e.g. `hosts`. */
  what: string;
  empty: ReactNode;
  children: (items: Item[]) => ReactNode;
}): ReactNode {
  const { loading, error, data } = props.query;
  return (
    <>
      {loading && <Loading what={props.what} />}
      {error && <ErrorBox title={`Cannot list ${props.what}`} error={error} />}
      {data && data.items.length === 0 && props.empty}
      {data && data.items.length > 0 && props.children(data.items)}
    </>
  );
}
