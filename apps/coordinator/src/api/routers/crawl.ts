import { z } from 'zod';
import { addSeeds } from '../../seeds/add-seeds';
import { addSeedsInput, addSeedsOutput } from '../../seeds/add-seeds.types';
import { listSeedLists, listSeeds } from '../../seeds/list-seeds';
import {
  listSeedListsInput,
  listSeedListsOutput,
  listSeedsInput,
  listSeedsOutput,
} from '../../seeds/list-seeds.types';
import {
  addBlockPattern,
  listBlockPatterns,
  listBlockRules,
  removeBlockPattern,
} from '../../hosts/block-patterns';
import {
  blockPatternInput,
  blockPatternsOutput,
  blockRulesOutput,
  removeBlockPatternQuery,
} from '../../hosts/block-patterns.types';
import { getHostDetails } from '../../hosts/host-details';
import { hostDetailsOutput } from '../../hosts/host-details.types';
import { setHostPolicy } from '../../hosts/host-policy';
import { searchHosts } from '../../hosts/search-hosts';
import { searchHostsInput, searchHostsOutput } from '../../hosts/search-hosts.types';
import { statsSeries } from '../../stats/stats-series';
import { statsSeriesInput, statsSeriesOutput } from '../../stats/stats-series.types';
import { hostPolicyPatch, hostPolicyView } from '../../hosts/host-policy.types';
import { getStats } from '../../stats/get-stats';
import { listDeadLetters, requeueDeadLetters } from '../../dead-letters/dead-letters';
import {
  listDeadLettersInput,
  requeueDeadLettersInput,
} from '../../dead-letters/dead-letters.types';
import { hostDeps, statsDeps } from '../services';
import { operatorProcedure, router, viewerProcedure } from '../trpc';

/** The crawl: viewers read it, operators steer it. */
export const seedsRouter = router({
  add: operatorProcedure
    .input(addSeedsInput)
    .output(addSeedsOutput)
    .mutation(({ ctx, input }) => addSeeds(ctx.services, ctx.call, input, 'api')),
  list: viewerProcedure
    .input(listSeedsInput)
    .output(listSeedsOutput)
    .query(({ ctx, input }) => listSeeds(ctx.services, input)),
  lists: viewerProcedure
    .input(listSeedListsInput)
    .output(listSeedListsOutput)
    .query(({ ctx, input }) => listSeedLists(ctx.services, input)),
});

export const hostsRouter = router({
  list: viewerProcedure
    .input(searchHostsInput)
    .output(searchHostsOutput)
    .query(({ ctx, input }) =>
      searchHosts(
        { analytics: ctx.services.analytics, policies: ctx.services.store.policies },
        input,
      ),
    ),
  get: viewerProcedure
    .input(z.object({ host: z.string() }).strict())
    .output(hostDetailsOutput)
    .query(({ ctx, input }) => getHostDetails(ctx.services, input.host, ctx.caller.role)),
  update: operatorProcedure
    .input(z.object({ host: z.string(), patch: hostPolicyPatch }).strict())
    .output(hostPolicyView)
    .mutation(({ ctx, input }) =>
      setHostPolicy(hostDeps(ctx.services), ctx.call, input.host, input.patch),
    ),
  blockPatterns: viewerProcedure
    .input(z.object({ host: z.string() }).strict())
    .output(blockPatternsOutput)
    .query(({ ctx, input }) => listBlockPatterns(ctx.services, input.host)),
  addBlockPattern: operatorProcedure
    .input(z.object({ host: z.string() }).extend(blockPatternInput.shape).strict())
    .output(blockPatternsOutput)
    .mutation(({ ctx, input: { host, ...rest } }) =>
      addBlockPattern(hostDeps(ctx.services), ctx.call, host, rest),
    ),
  removeBlockPattern: operatorProcedure
    .input(z.object({ host: z.string() }).extend(removeBlockPatternQuery.shape).strict())
    .output(blockPatternsOutput)
    .mutation(({ ctx, input: { host, ...rest } }) =>
      removeBlockPattern(hostDeps(ctx.services), ctx.call, host, rest),
    ),
  blockRules: viewerProcedure
    .output(blockRulesOutput)
    .query(({ ctx }) => listBlockRules(hostDeps(ctx.services))),
});

export const deadLettersRouter = router({
  list: viewerProcedure
    .input(listDeadLettersInput)
    .query(({ ctx, input }) => listDeadLetters(ctx.services, input)),
  requeue: operatorProcedure
    .input(requeueDeadLettersInput)
    .mutation(({ ctx, input }) => requeueDeadLetters(ctx.services, ctx.call, input)),
});

export const statsRouter = router({
  get: viewerProcedure.query(({ ctx }) => getStats(statsDeps(ctx.services))),
  series: viewerProcedure
    .input(statsSeriesInput)
    .output(statsSeriesOutput)
    .query(({ ctx, input }) => statsSeries(ctx.services, input)),
});
