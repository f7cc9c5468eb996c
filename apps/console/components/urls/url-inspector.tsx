'use client';

import { useRouter } from 'next/navigation';
import { useState, type ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import type { RouterOutputs, UrlFetch } from '../../lib/api/router-types';
import { api } from '../../lib/client/trpc';
import { useQuery } from '../../lib/client/use-query';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { SearchForm } from '../ui/search-form';
import { CaptureViewer } from './capture-viewer';
import { HistoryTable } from './history-table';
import { ParsedPage } from './parsed-page';
import { Verdict } from './verdict';

/** Why was this URL fetched, or not: its verdict, fetches, captures and parsed page. */
export function UrlInspector(props: {
  url: string;
  initial?: Settled<RouterOutputs['urls']['inspect']>;
}): ReactNode {
  const { url } = props;
  const router = useRouter();
  const [input, setInput] = useState(url);
  const [open, setOpen] = useState<UrlFetch | null>(null);
  const report = useQuery(api.urls.inspect, url ? { url } : null, { initial: props.initial });
  const submit = (): void => {
    setOpen(null);
    if (input.trim()) router.push(`/urls?${new URLSearchParams({ url: input.trim() }).toString()}`);
  };
  const r = report.data;
  return (
    <>
      <SearchForm
        label="URL"
        input={{
          name: 'url',
          type: 'url',
          placeholder: 'https://example.com/page',
          required: true,
        }}
        value={input}
        onChange={setInput}
        onSubmit={submit}
        submit={{ label: 'Inspect', primary: true }}
      />
      {!url && (
        <p className="muted">
          Enter a URL to see each fetch, its captures and why it was or was not fetched.
        </p>
      )}
      {report.loading && <Loading what="the URL’s history" />}
      {report.error && <ErrorBox title="Cannot inspect this URL" error={report.error} />}
      {r && (
        <div className="stack">
          <Verdict report={r} />
          <p className="muted mono break">
            {r.host} · url_fp {r.url_fp}
          </p>
          <Panel title="History" aside={`${r.history.length} fetches`}>
            <HistoryTable rows={r.history} open={open} onOpen={setOpen} />
          </Panel>
          {open && (
            <Panel title="Raw response">
              <CaptureViewer key={`${open.warc_key}@${open.warc_offset}`} capture={open} />
            </Panel>
          )}
          <ParsedPage page={r.page} />
        </div>
      )}
    </>
  );
}
