'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { apiSend, type ApiFailure } from '../../lib/client/api';
import { useCan } from '../../lib/client/session-context';
import type { HostDetail } from '../../lib/types/hosts';
import { ErrorBox } from '../ui/error-box';
import { Panel } from '../ui/panel';

/** Rate limit and block of one host (`PUT /v1/hosts/{host}`); read-only below operator. */
export function PolicyEditor(props: { host: HostDetail; onSaved: () => void }): ReactNode {
  const { host } = props;
  const canEdit = useCan('operator');
  const [rate, setRate] = useState(
    host.policy.rate_limit_rps === null ? '' : String(host.policy.rate_limit_rps),
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const put = async (patch: Record<string, unknown>, what: string): Promise<void> => {
    setBusy(true);
    setError(null);
    setSaved(null);
    const r = await apiSend('PUT', `/hosts/${encodeURIComponent(host.host)}`, patch);
    setBusy(false);
    if (!r.ok) return setError(r);
    setSaved(what);
    props.onSaved();
  };
  const saveRate = (e: FormEvent): void => {
    e.preventDefault();
    const value = rate.trim() === '' ? null : Number(rate);
    if (value !== null && !(value > 0 && value <= 1000)) {
      setError({
        ok: false,
        status: 400,
        code: 'BAD_REQUEST',
        message:
          'The rate limit must be a number above 0 and at most 1000, or empty for the crawl default.',
        fields: [],
        body: null,
      });
      return;
    }
    void put(
      { rate_limit_rps: value },
      value === null
        ? 'Rate limit reset to the crawl default.'
        : `Rate limit set to ${value} req/s.`,
    );
  };

  return (
    <Panel title="Policy">
      {!canEdit && <p className="muted">Viewers see the policy; operators change it.</p>}
      <form className="form form--row" onSubmit={saveRate}>
        <label className="field">
          <span>Rate limit (requests/s; empty = crawl default)</span>
          <input
            name="rate_limit_rps"
            type="number"
            step="any"
            min="0"
            inputMode="decimal"
            value={rate}
            onChange={(e) => setRate(e.target.value)}
            disabled={!canEdit || busy}
          />
        </label>
        <button type="submit" className="button" disabled={!canEdit || busy}>
          Save rate limit
        </button>
      </form>
      <div className="form__row">
        <p>
          {host.policy.blocked ? (
            <span className="badge badge--danger">Blocked: nothing is fetched from this host</span>
          ) : (
            <span className="badge">Not blocked</span>
          )}
        </p>
        <button
          type="button"
          className={host.policy.blocked ? 'button' : 'button button--danger'}
          disabled={!canEdit || busy}
          onClick={() =>
            void put(
              { blocked: !host.policy.blocked },
              host.policy.blocked ? 'Host unblocked.' : 'Host blocked: its fetches stop now.',
            )
          }
        >
          {host.policy.blocked ? 'Unblock host' : 'Block host'}
        </button>
      </div>
      <p className="muted">
        The daily page budget follows the crawl settings; changes apply from the host’s next lease,
        a block at once.
      </p>
      {saved && (
        <p className="notice notice--ok" role="status">
          {saved}
        </p>
      )}
      {error && <ErrorBox title="The policy was not changed" error={error} />}
    </Panel>
  );
}
