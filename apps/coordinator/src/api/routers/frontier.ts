import { getFrontierRebuild, requestFrontierRebuild } from '../../frontier-rebuild/request-rebuild';
import { frontierRebuildStatus } from '../../frontier-rebuild/rebuild-frontier.types';
import { adminProcedure, router } from '../trpc';

/** The frontier itself: rebuilt from Postgres and ClickHouse on demand (admin, audited). */
export const frontierRouter = router({
  rebuild: adminProcedure
    .output(frontierRebuildStatus)
    .mutation(({ ctx }) => requestFrontierRebuild(ctx.services, ctx.call)),
  rebuildStatus: adminProcedure
    .output(frontierRebuildStatus)
    .query(({ ctx }) => getFrontierRebuild(ctx.services)),
});
