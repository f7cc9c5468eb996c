import { z } from 'zod';
import { addSeeds } from '../seeds/add-seeds';
import { addSeedsInput, addSeedsOutput } from '../seeds/add-seeds.types';
import { getHost, setHostPolicy } from '../hosts/host-policy';
import { hostPolicyPatch } from '../hosts/host-policy.types';
import { getStats } from '../stats/get-stats';
import { listDeadLetters, requeueDeadLetters } from '../dead-letters/dead-letters';
import { listDeadLettersInput, requeueDeadLettersInput } from '../dead-letters/dead-letters.types';
import { publicProcedure, router } from './trpc';

/** The tRPC API; the REST /v1 routes call the same services with the same schemas. */
export const appRouter = router({
  seeds: router({
    add: publicProcedure
      .input(addSeedsInput)
      .output(addSeedsOutput)
      .mutation(({ ctx, input }) => addSeeds(ctx.services, input, 'api')),
  }),
  hosts: router({
    get: publicProcedure
      .input(z.object({ host: z.string() }).strict())
      .query(({ ctx, input }) => getHost(hostDeps(ctx.services), input.host)),
    update: publicProcedure
      .input(z.object({ host: z.string(), patch: hostPolicyPatch }).strict())
      .mutation(({ ctx, input }) => setHostPolicy(hostDeps(ctx.services), input.host, input.patch)),
  }),
  deadLetters: router({
    list: publicProcedure
      .input(listDeadLettersInput)
      .query(({ ctx, input }) => listDeadLetters(ctx.services, input)),
    requeue: publicProcedure
      .input(requeueDeadLettersInput)
      .mutation(({ ctx, input }) => requeueDeadLetters(ctx.services, input)),
  }),
  stats: router({
    get: publicProcedure.query(({ ctx }) => getStats(ctx.services)),
  }),
});

export type AppRouter = typeof appRouter;

export function hostDeps(s: import('./services').Services) {
  return {
    policies: s.policies,
    frontier: s.frontier,
    defaultGapMs: s.config.CRAWLER_DEFAULT_GAP_MS,
  };
}
