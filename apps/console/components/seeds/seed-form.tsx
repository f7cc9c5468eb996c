'use client';

import { useState, type ChangeEvent, type FormEvent, type ReactNode } from 'react';
import { settle, type ApiFailure } from '../../lib/api/api-failure';
import type { SeedsResult } from '../../lib/api/router-types';
import { useCan } from '../../lib/client/session-context';
import { api } from '../../lib/client/trpc';
import { parseUrlList } from '../../lib/parse-url-list';
import { CheckField } from '../ui/check-field';
import { ErrorBox } from '../ui/error-box';
import { NotAllowed } from '../ui/not-allowed';
import { SeedResult } from './seed-result';

const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** Paste or upload URLs (pages or sitemaps), choose a priority, and see what was accepted. */
export function SeedForm(props: { onAdded?: () => void }): ReactNode {
  const canEdit = useCan('operator');
  const [text, setText] = useState('');
  const [priority, setPriority] = useState(1);
  const [list, setList] = useState('');
  const [sitemap, setSitemap] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ result: SeedsResult; sent: number } | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [fileNote, setFileNote] = useState<string | null>(null);

  if (!canEdit) return <NotAllowed need="operator" what="Adding seeds" />;
  const urls = parseUrlList(text);

  const onFile = async (e: ChangeEvent<HTMLInputElement>): Promise<void> => {
    const file = e.target.files?.[0];
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      setFileNote(`${file.name} is larger than 2 MiB; split it into smaller lists.`);
      return;
    }
    const content = await file.text();
    setText((t) => (t.trim() ? `${t.trimEnd()}\n${content}` : content));
    setFileNote(`Added ${parseUrlList(content).length} lines from ${file.name}.`);
  };

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (urls.length === 0) return;
    setBusy(true);
    setError(null);
    setResult(null);
    const r = await settle(
      api.seeds.add.mutate({
        urls,
        priority,
        ...(list.trim() ? { list: list.trim() } : {}),
        ...(sitemap ? { sitemap: true } : {}),
      }),
    );
    // Refused entries are part of the answer: the valid ones were added all the same.
    if (r.ok) {
      setResult({ result: r.data, sent: urls.length });
      props.onAdded?.();
    } else setError(r);
    setBusy(false);
  };

  return (
    <>
      <form className="form panel" onSubmit={(e) => void submit(e)}>
        <label className="field">
          <span>URLs or sitemaps, one per line</span>
          <textarea
            name="urls"
            rows={8}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={'https://example.com/\nhttps://example.org/sitemap.xml'}
            spellCheck={false}
          />
        </label>
        <div className="form__row">
          <label className="field field--inline">
            <span>Upload a list (.txt, .csv)</span>
            <input
              type="file"
              accept=".txt,.csv,text/plain,text/csv"
              onChange={(e) => void onFile(e)}
            />
          </label>
          <label className="field field--inline">
            <span>Priority (0 highest – 9)</span>
            <input
              type="number"
              min={0}
              max={9}
              value={priority}
              onChange={(e) => setPriority(Math.min(9, Math.max(0, Number(e.target.value) || 0)))}
            />
          </label>
          <label className="field field--inline">
            <span>Seed list (optional)</span>
            <input
              name="list"
              value={list}
              maxLength={100}
              placeholder="e.g. news-sites"
              onChange={(e) => setList(e.target.value)}
            />
          </label>
          <CheckField
            name="sitemap"
            label="Every URL is a sitemap"
            checked={sitemap}
            onChange={setSitemap}
          />
        </div>
        {fileNote && (
          <p className="muted" role="status">
            {fileNote}
          </p>
        )}
        <p className="muted">
          A sitemap (a URL ending in .xml, .xml.gz or sitemap….txt, one whose content is a sitemap,
          or every URL when the box is ticked) is fetched and the pages it lists are queued: those
          under its own host and folder, or on hosts whose robots.txt names it; an index’s sitemaps
          are followed too. Hosts’ robots.txt <code>Sitemap:</code> lines are followed
          automatically.
        </p>
        <div className="form__actions">
          <button
            type="submit"
            className="button button--primary"
            disabled={busy || urls.length === 0}
          >
            {busy ? 'Adding…' : `Add ${urls.length || ''} seed${urls.length === 1 ? '' : 's'}`}
          </button>
        </div>
      </form>
      {error && <ErrorBox title="The seeds were not added" error={error} />}
      {result && <SeedResult result={result.result} sent={result.sent} />}
    </>
  );
}
