'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { refusal } from '../../lib/api/api-failure';
import type { HostDetail, RouterInputs } from '../../lib/api/router-types';
import { useCan } from '../../lib/client/session-context';
import { api } from '../../lib/client/trpc';
import { useAction } from '../../lib/client/use-action';
import { ActionStatus } from '../ui/action-status';
import { CheckField } from '../ui/check-field';
import { Panel } from '../ui/panel';
import { NumberField, parseField } from './number-field';

/**
 * Rate limit, daily budget, allowlist, connections and block of one host or pattern
 * (`hosts.update`); read-only below operator.
 */
export function PolicyEditor(props: { host: HostDetail; onSaved: () => void }): ReactNode {
  const { host } = props;
  const canEdit = useCan('operator');
  const [rate, setRate] = useState(
    host.policy.rate_limit_rps === null ? '' : String(host.policy.rate_limit_rps),
  );
  const [budget, setBudget] = useState(
    host.policy.daily_budget === null ? '' : String(host.policy.daily_budget),
  );
  const [allowlisted, setAllowlisted] = useState(host.policy.allowlisted === true);
  const [connections, setConnections] = useState(
    host.policy.max_connections === null ? '' : String(host.policy.max_connections),
  );
  const action = useAction('The policy was not changed');
  const busy = action.busy;

  const put = async (patch: RouterInputs['hosts']['update']['patch'], what: string) => {
    const r = await action.run(() => api.hosts.update.mutate({ host: host.host, patch }), {
      done: () => what,
    });
    if (r.ok) props.onSaved();
  };
  const refuse = (message: string): void => action.refuse(refusal('BAD_REQUEST', message));

  const saveRate = (e: FormEvent): void => {
    e.preventDefault();
    const value = parseField(rate, Number.MIN_VALUE, 1000, false);
    if (value === undefined)
      return refuse(
        'The rate limit must be a number above 0 and at most 1000, or empty for the crawl default.',
      );
    void put(
      { rate_limit_rps: value },
      value === null
        ? 'Rate limit reset to the crawl default.'
        : `Rate limit set to ${value} req/s.`,
    );
  };

  const saveLimits = (e: FormEvent): void => {
    e.preventDefault();
    const value = parseField(budget, 0, 100_000_000, true);
    const conns = parseField(connections, 1, 16, true);
    if (value === undefined)
      return refuse(
        'The daily budget must be a whole number of pages from 0 (unlimited) to 100,000,000, or empty for the default.',
      );
    if (conns === undefined)
      return refuse(
        'Connections must be a whole number from 1 to 16, or empty for the default (1).',
      );
    void put(
      { daily_budget: value, allowlisted: allowlisted ? true : null, max_connections: conns },
      allowlisted
        ? 'Host allowlisted: no daily budget.'
        : value === null
          ? 'Daily budget reset to the default.'
          : `Daily budget set to ${value === 0 ? 'unlimited' : `${value} pages`}.`,
    );
  };

  return (
    <Panel title="Policy">
      {!canEdit && <p className="muted">Viewers see the policy; operators change it.</p>}
      <form className="form form--row" onSubmit={saveRate}>
        <NumberField
          name="rate_limit_rps"
          label="Rate limit (requests/s; empty = crawl default)"
          value={rate}
          onChange={setRate}
          disabled={!canEdit || busy}
          min={0}
          decimal
        />
        <button type="submit" className="button" disabled={!canEdit || busy}>
          Save rate limit
        </button>
      </form>
      <form className="form form--row" onSubmit={saveLimits}>
        <NumberField
          name="daily_budget"
          label={`Daily page budget (pages per UTC day; 0 = unlimited; empty = default, now ${
            host.policy.effective_daily_budget === 0
              ? 'unlimited'
              : host.policy.effective_daily_budget.toLocaleString('en')
          })`}
          value={budget}
          onChange={setBudget}
          disabled={!canEdit || busy}
          min={0}
        />
        <NumberField
          name="max_connections"
          label={`Connections at once (1–16; empty = default, now ${host.policy.effective_max_connections})`}
          value={connections}
          onChange={setConnections}
          disabled={!canEdit || busy}
          min={1}
          max={16}
        />
        <CheckField
          name="allowlisted"
          label="Allowlisted (no budget)"
          checked={allowlisted}
          onChange={setAllowlisted}
          disabled={!canEdit || busy}
        />
        <button type="submit" className="button" disabled={!canEdit || busy}>
          Save limits
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
      {host.policy.patterns.length > 0 && (
        <p className="muted">
          Also covered by {host.policy.patterns.join(', ')}: fields not set on this host come from
          there.
        </p>
      )}
      <p className="muted">
        Changes apply from the host’s next lease, a block at once. To set a policy for a domain and
        all its subdomains, open the host <code>*.example.com</code>.
      </p>
      <ActionStatus action={action} />
    </Panel>
  );
}
