import { listAgents } from '../../agents/list-agents';
import {
  listAgentsInput,
  listAgentsOutput,
  releaseAgentLeasesInput,
  releaseAgentLeasesOutput,
} from '../../agents/list-agents.types';
import { releaseAgentLeases } from '../../agents/release-agent-leases';
import { readCapture } from '../../captures/read-capture';
import { readCaptureInput, readCaptureOutput } from '../../captures/read-capture.types';
import { getSettings, updateSettings } from '../../settings/crawl-settings';
import { crawlSettingsPatch, crawlSettingsView } from '../../settings/crawl-settings.types';
import { listShards } from '../../shards/list-shards';
import { listShardsInput, listShardsOutput } from '../../shards/list-shards.types';
import { listRedisNodes } from '../../shards/list-redis-nodes';
import { getShardMove, moveShard } from '../../shards/move-shard';
import {
  moveShardInput,
  redisNodesOutput,
  shardMoveStatusInput,
  shardMoveView,
} from '../../shards/move-shard.types';
import { inspectUrl } from '../../urls/inspect-url';
import { inspectUrlInput, inspectUrlOutput } from '../../urls/inspect-url.types';
import { rest, SMALL_BODY_BYTES } from '../api-meta';
import { inspectDeps, warcStoreOf } from '../services';
import { adminProcedure, operatorProcedure, router, viewerProcedure } from '../trpc';

/** What the console inspects: URLs, captures, agents, shards; and the crawl settings. */
export const urlsRouter = router({
  inspect: viewerProcedure
    .meta(
      rest('GET', '/v1/urls', 'Everything known about one URL, and why it was or was not fetched'),
    )
    .input(inspectUrlInput)
    .output(inspectUrlOutput)
    .query(({ ctx, input }) => inspectUrl(inspectDeps(ctx.services), input)),
});

export const capturesRouter = router({
  read: viewerProcedure
    .meta(
      rest('GET', '/v1/captures', 'One WARC record read back by its CDX location', {
        errors: ['NOT_FOUND', 'UNAVAILABLE'],
      }),
    )
    .input(readCaptureInput)
    .output(readCaptureOutput)
    .query(({ ctx, input }) => readCapture({ warcStore: warcStoreOf(ctx.services) }, input)),
});

export const agentsRouter = router({
  list: viewerProcedure
    .meta(
      rest(
        'GET',
        '/v1/agents',
        'Agents with their heartbeat, state (alive, dead, stopped), leases and throughput',
      ),
    )
    .input(listAgentsInput)
    .output(listAgentsOutput)
    .query(({ ctx, input }) => listAgents(ctx.services, input)),
  /** A dead agent's open leases back to the queues now (operators; 409 while it is alive). */
  releaseLeases: operatorProcedure
    .meta(
      rest(
        'POST',
        '/v1/agents/{id}/release-leases',
        'Returns a dead agent’s open leases to the queues now (409 while it is alive; audited)',
        { errors: ['NOT_FOUND', 'CONFLICT'] },
      ),
    )
    .input(releaseAgentLeasesInput)
    .output(releaseAgentLeasesOutput)
    .mutation(({ ctx, input }) => releaseAgentLeases(ctx.services, ctx.call, input)),
});

export const shardsRouter = router({
  list: viewerProcedure
    .meta(rest('GET', '/v1/shards', 'Counters of each logical frontier shard and its Redis node'))
    .input(listShardsInput)
    .output(listShardsOutput)
    .query(({ ctx, input }) => listShards(ctx.services, input)),
  nodes: viewerProcedure
    .meta(
      rest(
        'GET',
        '/v1/shards/nodes',
        'The Redis Cluster masters a shard can move to, with the shards each serves',
        { errors: ['UNAVAILABLE'] },
      ),
    )
    .output(redisNodesOutput)
    .query(({ ctx }) => listRedisNodes(ctx.services)),
  /** Moves a shard's slot to another master (admin; audited). */
  move: adminProcedure
    .meta(
      rest(
        'POST',
        '/v1/shards/{shard}/move',
        'Moves a shard to another Redis Cluster master: freeze, migrate its slot, thaw (safe to retry; audited); answers when done, or `running` after 20 s',
        { errors: ['CONFLICT', 'UNAVAILABLE'], maxBodyBytes: SMALL_BODY_BYTES },
      ),
    )
    .input(moveShardInput)
    .output(shardMoveView)
    .mutation(({ ctx, input }) => moveShard(ctx.services, ctx.call, input)),
  moveStatus: viewerProcedure
    .meta(
      rest('GET', '/v1/shards/{shard}/move', 'The latest move of a shard and its progress', {
        errors: ['NOT_FOUND'],
      }),
    )
    .input(shardMoveStatusInput)
    .output(shardMoveView)
    .query(({ ctx, input }) => getShardMove(ctx.services, input)),
});

export const settingsRouter = router({
  get: viewerProcedure
    .meta(rest('GET', '/v1/settings', 'Crawl-wide settings in effect'))
    .output(crawlSettingsView)
    .query(({ ctx }) => getSettings(ctx.services)),
  update: adminProcedure
    .meta(
      rest('PUT', '/v1/settings', 'Changes crawl-wide settings (audited)', {
        maxBodyBytes: SMALL_BODY_BYTES,
      }),
    )
    .input(crawlSettingsPatch)
    .output(crawlSettingsView)
    .mutation(({ ctx, input }) => updateSettings(ctx.services, ctx.call, input)),
});
