import Link from 'next/link';
import type { ReactNode } from 'react';
import type { RouterOutputs } from '../../lib/api/router-types';
import { Panel } from '../ui/panel';

/** The newest parsed page of the URL: its facts, text and links. */
export function ParsedPage({
  page,
}: {
  page: RouterOutputs['urls']['inspect']['page'];
}): ReactNode {
  if (!page)
    return (
      <Panel title="Parsed page">
        <p className="muted">No parsed text: the URL was not fetched as HTML yet.</p>
      </Panel>
    );
  return (
    <>
      <Panel title="Parsed page" aside={page.lang || undefined}>
        <dl className="facts">
          <dt>Title</dt>
          <dd>{page.title || '—'}</dd>
          <dt>Description</dt>
          <dd>{page.description || '—'}</dd>
          <dt>Canonical</dt>
          <dd className="break">{page.canonical || '—'}</dd>
          <dt>noindex</dt>
          <dd>{page.noindex ? 'yes' : 'no'}</dd>
          <dt>SimHash</dt>
          <dd className="mono">{page.simhash || '—'}</dd>
          <dt>SHA-256</dt>
          <dd className="mono break">{page.content_hash || '—'}</dd>
        </dl>
        <pre
          className="code-block code-block--tall text-block"
          tabIndex={0}
          aria-label="Parsed text"
        >
          {page.text || '(no text)'}
        </pre>
      </Panel>
      <Panel title="Links" aside={`${page.links.length}`}>
        {page.links.length === 0 ? (
          <p className="muted">No links.</p>
        ) : (
          <ul className="link-list">
            {page.links.slice(0, 500).map((l) => (
              <li key={l.url}>
                <Link href={`/urls?url=${encodeURIComponent(l.url)}`}>{l.url}</Link>
                {l.nofollow && <span className="badge">nofollow</span>}
              </li>
            ))}
          </ul>
        )}
      </Panel>
    </>
  );
}
