import { Suspense, type ReactNode } from 'react';
import { Loading } from './loading';
import { PageHead } from './page-head';

/**
 * A page of the console: its heading and lead, then `children` (which ask the coordinator for
 * the page's first data on the server) behind a spinner naming `loading` until they answer.
 */
export function ConsolePage(props: {
  title: string;
  lead: ReactNode;
  /** What is loading, e.g. `hosts`. */
  loading: string;
  /** A new key shows the spinner again (a new URL of the same page). */
  suspenseKey?: string;
  children: ReactNode;
}): ReactNode {
  return (
    <>
      <PageHead title={props.title}>{props.lead}</PageHead>
      <Suspense key={props.suspenseKey} fallback={<Loading what={props.loading} />}>
        {props.children}
      </Suspense>
    </>
  );
}
