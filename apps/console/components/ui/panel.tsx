import { useId, type ReactNode } from 'react';

/** A titled section; its heading labels it for screen readers. */
export function Panel(props: {
  title: string;
  aside?: ReactNode;
  children: ReactNode;
  className?: string;
}): ReactNode {
  const id = useId();
  return (
    <section className={`panel ${props.className ?? ''}`} aria-labelledby={id}>
      <div className="panel__head">
        <h2 id={id}>{props.title}</h2>
        {props.aside !== undefined && <span className="muted">{props.aside}</span>}
      </div>
      {props.children}
    </section>
  );
}
