import type { ReactNode } from 'react';

export function PageHead(props: { title: string; children?: ReactNode }): ReactNode {
  return (
    <div className="page-head">
      <h1>{props.title}</h1>
      {props.children !== undefined && <p className="muted">{props.children}</p>}
    </div>
  );
}
