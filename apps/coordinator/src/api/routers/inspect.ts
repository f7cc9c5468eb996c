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
import { inspectUrl } from '../../urls/inspect-url';
import { inspectUrlInput, inspectUrlOutput } from '../../urls/inspect-url.types';
import { inspectDeps, warcStoreOf } from '../services';
import { adminProcedure, operatorProcedure, router, viewerProcedure } from '../trpc';

/** What the console inspects: URLs, captures, agents, shards; and the crawl settings. */
export const urlsRouter = router({
  inspect: viewerProcedure
    .input(inspectUrlInput)
    .output(inspectUrlOutput)
    .query(({ ctx, input }) => inspectUrl(inspectDeps(ctx.services), input)),
});

export const capturesRouter = router({
  read: viewerProcedure
    .input(readCaptureInput)
    .output(readCaptureOutput)
    .query(({ ctx, input }) => readCapture({ warcStore: warcStoreOf(ctx.services) }, input)),
});

export const agentsRouter = router({
  list: viewerProcedure
    .input(listAgentsInput)
    .output(listAgentsOutput)
    .query(({ ctx, input }) => listAgents(ctx.services, input)),
  /** A dead agent's open leases back to the queues now (operators; 409 while it is alive). */
  releaseLeases: operatorProcedure
    .input(releaseAgentLeasesInput)
    .output(releaseAgentLeasesOutput)
    .mutation(({ ctx, input }) => releaseAgentLeases(ctx.services, ctx.call, input)),
});

export const shardsRouter = router({
  list: viewerProcedure
    .input(listShardsInput)
    .output(listShardsOutput)
    .query(({ ctx, input }) => listShards(ctx.services, input)),
});

export const settingsRouter = router({
  get: viewerProcedure.output(crawlSettingsView).query(({ ctx }) => getSettings(ctx.services)),
  update: adminProcedure
    .input(crawlSettingsPatch)
    .output(crawlSettingsView)
    .mutation(({ ctx, input }) => updateSettings(ctx.services, ctx.call, input)),
});
