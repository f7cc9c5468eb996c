import type { ReactNode } from 'react';
import { formatCount } from '../../lib/format';
import type { HostDetail } from '../../lib/api/router-types';
import { Time } from '../ui/time';
import { Tile } from '../ui/tile';

/** The host's queue, next allowed time, state and pace, as tiles. */
export function HostStatus({ host }: { host: HostDetail }): ReactNode {
  return (
    <dl className="tiles">
      <Tile label="Queue" value={formatCount(host.queue_length)} detail="URLs waiting" />
      <Tile
        label="Next allowed"
        value={
          host.next_allowed_at ? new Date(host.next_allowed_at).toLocaleTimeString('en-GB') : '—'
        }
        detail={host.next_allowed_at ? <Time at={host.next_allowed_at} /> : 'not scheduled'}
      />
      <Tile
        label="State"
        value={
          host.policy.blocked ? 'Blocked' : host.parked ? 'Parked' : host.leased ? 'Leased' : 'Idle'
        }
        detail={host.parked ?? (host.leased ? 'an agent holds a lease' : 'no open lease')}
        tone={host.policy.blocked || host.parked ? 'danger' : 'default'}
      />
      <Tile
        label="Pace"
        value={`${(1000 / Math.max(1, host.policy.effective_gap_ms)).toFixed(2)} req/s`}
        detail={host.policy.rate_limit_rps === null ? 'crawl default' : 'set for this host'}
      />
    </dl>
  );
}
