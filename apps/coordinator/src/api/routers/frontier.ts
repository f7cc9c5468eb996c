import { getFrontierRebuild, requestFrontierRebuild } from '../../frontier-rebuild/request-rebuild';
import { frontierRebuildStatus } from '../../frontier-rebuild/rebuild-frontier.types';
import { rest } from '../api-meta';
import { adminProcedure, router } from '../trpc';

/** The frontier itself: rebuilt from Postgres and ClickHouse on demand (admin, audited). */
export const frontierRouter = router({
  rebuild: adminProcedure
    .meta(
      rest(
        'POST',
        '/v1/frontier/rebuild',
        'Rebuilds the frontier from Postgres and ClickHouse (idempotent; audited); answers when done, or `running` after 20 s',
        { errors: ['CONFLICT'] },
      ),
    )
    .output(frontierRebuildStatus)
    .mutation(({ ctx }) => requestFrontierRebuild(ctx.services, ctx.call)),
  rebuildStatus: adminProcedure
    .meta(
      rest(
        'GET',
        '/v1/frontier/rebuild',
        'The latest frontier rebuild of this coordinator: running, done (its report) or failed',
      ),
    )
    .output(frontierRebuildStatus)
    .query(({ ctx }) => getFrontierRebuild(ctx.services)),
});
