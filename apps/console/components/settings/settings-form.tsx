'use client';

import type { FormEvent, ReactNode } from 'react';
import type { Settled } from '../../lib/api/api-failure';
import type { RouterInputs, RouterOutputs } from '../../lib/api/router-types';
import { formText } from '../../lib/client/form-text';
import { useCan } from '../../lib/client/session-context';
import { api } from '../../lib/client/trpc';
import { useAction } from '../../lib/client/use-action';
import { useQuery } from '../../lib/client/use-query';
import { ActionStatus } from '../ui/action-status';
import { ErrorBox } from '../ui/error-box';
import { Loading } from '../ui/loading';
import { Panel } from '../ui/panel';
import { Time } from '../ui/time';

type Settings = RouterOutputs['settings']['get'];
type Patch = RouterInputs['settings']['update'];

const FIELDS: Array<{
  key: keyof Patch & keyof Settings;
  label: string;
  type: 'url' | 'number';
  step?: string;
  help: string;
}> = [
  {
    key: 'user_agent_contact',
    label: 'User-Agent contact URL',
    type: 'url',
    help: 'Named in every request, so site owners can reach you.',
  },
  {
    key: 'recrawl_share',
    label: 'Re-crawl share (0–1)',
    type: 'number',
    step: '0.05',
    help: 'Capacity kept for re-crawls, so discovery cannot starve them.',
  },
  {
    key: 'default_rate_limit_rps',
    label: 'Default rate limit (requests/s per host)',
    type: 'number',
    step: 'any',
    help: 'For hosts without their own limit.',
  },
  {
    key: 'max_depth',
    label: 'Maximum depth',
    type: 'number',
    step: '1',
    help: 'Hops from a seed.',
  },
];

/** Crawl settings; admins change them. */
export function SettingsForm(props: { initial?: Settled<Settings> }): ReactNode {
  const canEdit = useCan('admin');
  const settings = useQuery(api.settings.get, undefined, { initial: props.initial });
  const action = useAction('The settings were not saved');

  const save = async (e: FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const patch: Record<string, string | number> = {};
    for (const field of FIELDS) {
      const v = formText(f, field.key).trim();
      if (v !== '') patch[field.key] = field.type === 'number' ? Number(v) : v;
    }
    // The coordinator validates each field (a wrong type is refused with its reason).
    const r = await action.run(() => api.settings.update.mutate(patch as Patch), {
      done: () => 'Settings saved.',
    });
    if (r.ok) settings.refresh();
  };

  return (
    <Panel title="Crawl settings">
      {settings.loading && <Loading what="settings" />}
      {settings.error && <ErrorBox title="Cannot load the settings" error={settings.error} />}
      {settings.data && (
        <form className="form" onSubmit={(e) => void save(e)}>
          {!canEdit && <p className="muted">Admins change these settings.</p>}
          <p className="muted">
            {settings.data.updated_at ? (
              <>
                Last changed <Time at={settings.data.updated_at} />.
              </>
            ) : (
              'All values come from the environment (never changed here).'
            )}{' '}
            Agents apply a change within a few seconds, without a restart.
          </p>
          {FIELDS.map((field) => (
            <label key={field.key} className="field">
              <span>{field.label}</span>
              <input
                name={field.key}
                type={field.type}
                step={field.step}
                defaultValue={settings.data?.[field.key] ?? ''}
                disabled={!canEdit}
              />
              <small className="muted">
                {field.help}
                {settings.data?.overridden?.includes(field.key)
                  ? ' Set here.'
                  : ' From the environment.'}
              </small>
            </label>
          ))}
          {canEdit && (
            <div className="form__actions">
              <button type="submit" className="button button--primary">
                Save settings
              </button>
            </div>
          )}
        </form>
      )}
      <ActionStatus action={action} />
    </Panel>
  );
}
