import { z } from 'zod';
import { addSeeds } from '../../seeds/add-seeds';
import { addSeedsInput, addSeedsOutput, type AddSeedsOutput } from '../../seeds/add-seeds.types';
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
import { rest, SMALL_BODY_BYTES } from '../api-meta';
import { hostDeps, statsDeps } from '../services';
import { operatorProcedure, router, viewerProcedure } from '../trpc';

/**
 * Invalid entries make POST /v1/seeds a 400 that names each of them (`rejected`); the valid
 * ones are applied all the same.
 */
function seedsPartial(out: AddSeedsOutput): string | null {
  if (out.rejected.length === 0) return null;
  return `${out.rejected.length} of the URLs are invalid; the ${out.valid} valid ones were accepted`;
}

const hostParam = z.object({ host: z.string() }).strict();

/** The crawl: viewers read it, operators steer it. */
export const seedsRouter = router({
  add: operatorProcedure
    .meta(
      rest('POST', '/v1/seeds', 'Adds seed URLs, optionally to a named seed list', {
        partial: seedsPartial,
      }),
    )
    .input(addSeedsInput)
    .output(addSeedsOutput)
    .mutation(({ ctx, input }) => addSeeds(ctx.services, ctx.call, input, 'api')),
  list: viewerProcedure
    .meta(rest('GET', '/v1/seeds', 'Stored seeds, oldest first, of one seed list or all'))
    .input(listSeedsInput)
    .output(listSeedsOutput)
    .query(({ ctx, input }) => listSeeds(ctx.services, input)),
  lists: viewerProcedure
    .meta(rest('GET', '/v1/seed-lists', 'Seed lists by name, with their sizes'))
    .input(listSeedListsInput)
    .output(listSeedListsOutput)
    .query(({ ctx, input }) => listSeedLists(ctx.services, input)),
});

export const hostsRouter = router({
  list: viewerProcedure
    .meta(rest('GET', '/v1/hosts', 'Hosts known from fetches or policies, by name'))
    .input(searchHostsInput)
    .output(searchHostsOutput)
    .query(({ ctx, input }) =>
      searchHosts(
        { analytics: ctx.services.analytics, policies: ctx.services.store.policies },
        input,
      ),
    ),
  get: viewerProcedure
    .meta(
      rest(
        'GET',
        '/v1/hosts/{host}',
        'A host: policy, frontier state, robots.txt, recent fetches and errors, audit',
        { errors: ['NOT_FOUND'] },
      ),
    )
    .input(hostParam)
    .output(hostDetailsOutput)
    .query(({ ctx, input }) => getHostDetails(ctx.services, input.host, ctx.caller.role)),
  update: operatorProcedure
    .meta(
      rest(
        'PUT',
        '/v1/hosts/{host}',
        'Sets the policy (rate limit, block, daily budget, allowlist) of a host, or of every host under *.example.com',
        { bodyField: 'patch' },
      ),
    )
    .input(z.object({ host: z.string(), patch: hostPolicyPatch }).strict())
    .output(hostPolicyView)
    .mutation(({ ctx, input }) =>
      setHostPolicy(hostDeps(ctx.services), ctx.call, input.host, input.patch),
    ),
  blockPatterns: viewerProcedure
    .meta(
      rest(
        'GET',
        '/v1/hosts/{host}/block-patterns',
        'URL block patterns of a host or *.example.com, and those of its domains',
      ),
    )
    .input(hostParam)
    .output(blockPatternsOutput)
    .query(({ ctx, input }) => listBlockPatterns(ctx.services, input.host)),
  addBlockPattern: operatorProcedure
    .meta(
      rest(
        'POST',
        '/v1/hosts/{host}/block-patterns',
        'Adds a URL block pattern (path prefix or glob, path only) to a host or *.example.com; agents drop matching links within seconds (audited)',
        { maxBodyBytes: SMALL_BODY_BYTES },
      ),
    )
    .input(hostParam.extend(blockPatternInput.shape).strict())
    .output(blockPatternsOutput)
    .mutation(({ ctx, input: { host, ...rest } }) =>
      addBlockPattern(hostDeps(ctx.services), ctx.call, host, rest),
    ),
  removeBlockPattern: operatorProcedure
    .meta(
      rest(
        'DELETE',
        '/v1/hosts/{host}/block-patterns',
        'Removes a URL block pattern of a host or *.example.com (audited)',
        { errors: ['NOT_FOUND'] },
      ),
    )
    .input(hostParam.extend(removeBlockPatternQuery.shape).strict())
    .output(blockPatternsOutput)
    .mutation(({ ctx, input: { host, ...rest } }) =>
      removeBlockPattern(hostDeps(ctx.services), ctx.call, host, rest),
    ),
  blockRules: viewerProcedure
    .meta(
      rest(
        'GET',
        '/v1/block-rules',
        'Every block rule agents apply: blocked hosts and URL patterns, with the version',
      ),
    )
    .output(blockRulesOutput)
    .query(({ ctx }) => listBlockRules(hostDeps(ctx.services))),
});

export const deadLettersRouter = router({
  list: viewerProcedure
    .meta(rest('GET', '/v1/dead-letters', 'URLs parked after repeated failures'))
    .input(listDeadLettersInput)
    .query(({ ctx, input }) => listDeadLetters(ctx.services, input)),
  requeue: operatorProcedure
    .meta(rest('POST', '/v1/dead-letters/requeue', 'Puts dead letters back into their queues'))
    .input(requeueDeadLettersInput)
    .mutation(({ ctx, input }) => requeueDeadLetters(ctx.services, ctx.call, input)),
});

export const statsRouter = router({
  get: viewerProcedure
    .meta(rest('GET', '/v1/stats', 'The crawl at a glance: frontier, fetches, seeds, agents'))
    .query(({ ctx }) => getStats(statsDeps(ctx.services))),
  series: viewerProcedure
    .meta(
      rest(
        'GET',
        '/v1/stats/series',
        'Fetch throughput, status classes, latency and duplicates over a time window',
      ),
    )
    .input(statsSeriesInput)
    .output(statsSeriesOutput)
    .query(({ ctx, input }) => statsSeries(ctx.services, input)),
});
