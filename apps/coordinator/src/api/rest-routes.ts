import { listAgents } from '../agents/list-agents';
import {
  listAgentsInput,
  listAgentsOutput,
  releaseAgentLeasesOutput,
} from '../agents/list-agents.types';
import { releaseAgentLeases } from '../agents/release-agent-leases';
import { listAudit } from '../audit/list-audit';
import { listAuditInput } from '../audit/audit.types';
import { loginInput } from '../auth/auth.types';
import { readCapture } from '../captures/read-capture';
import { readCaptureInput, readCaptureOutput } from '../captures/read-capture.types';
import { listDeadLettersInput, requeueDeadLettersInput } from '../dead-letters/dead-letters.types';
import {
  addBlockPattern,
  listBlockPatterns,
  listBlockRules,
  removeBlockPattern,
} from '../hosts/block-patterns';
import {
  blockPatternInput,
  blockPatternsOutput,
  blockRulesOutput,
  removeBlockPatternQuery,
} from '../hosts/block-patterns.types';
import { getHostDetails } from '../hosts/host-details';
import { hostDetailsOutput } from '../hosts/host-details.types';
import { hostPolicyPatch, hostPolicyView } from '../hosts/host-policy.types';
import { searchHosts } from '../hosts/search-hosts';
import { searchHostsInput, searchHostsOutput } from '../hosts/search-hosts.types';
import { addSeedsInput, addSeedsOutput } from '../seeds/add-seeds.types';
import { getFrontierRebuild, requestFrontierRebuild } from '../frontier-rebuild/request-rebuild';
import { frontierRebuildStatus } from '../frontier-rebuild/rebuild-frontier.types';
import { getSettings, updateSettings } from '../settings/crawl-settings';
import { crawlSettingsPatch, crawlSettingsView } from '../settings/crawl-settings.types';
import { listShards } from '../shards/list-shards';
import { listShardsInput, listShardsOutput } from '../shards/list-shards.types';
import { statsSeries } from '../stats/stats-series';
import { statsSeriesInput, statsSeriesOutput } from '../stats/stats-series.types';
import { createTokenInput, listTokensInput } from '../tokens/tokens.types';
import { inspectUrl } from '../urls/inspect-url';
import { inspectUrlInput, inspectUrlOutput } from '../urls/inspect-url.types';
import { createUserInput, listUsersInput, userPatch } from '../users/users.types';
import { openApiDocument } from './openapi/build-openapi';
import { authenticate } from '../auth/authenticate';
import { login, logout, me } from '../auth/login';
import { listDeadLetters, requeueDeadLetters } from '../dead-letters/dead-letters';
import { setHostPolicy } from '../hosts/host-policy';
import { addSeeds } from '../seeds/add-seeds';
import { listSeedLists, listSeeds } from '../seeds/list-seeds';
import {
  listSeedListsInput,
  listSeedListsOutput,
  listSeedsInput,
  listSeedsOutput,
} from '../seeds/list-seeds.types';
import { getStats } from '../stats/get-stats';
import { createToken, listTokens, revokeToken } from '../tokens/manage-tokens';
import { createUser, listUsers, updateUser } from '../users/manage-users';
import { callOf, publicRoute, route, type Route } from './rest';
import {
  accountDeps,
  hostDeps,
  inspectDeps,
  sessionDeps,
  statsDeps,
  warcStoreOf,
} from './services';

/** Bodies of the account routes are small; a larger one is refused before it is parsed. */
const SMALL_BODY = 64 * 1024;

/**
 * REST /v1: the same services and zod schemas as the tRPC router, each route with the least
 * role that may call it (README.md lists them).
 */
export const restRoutes: Route[] = [
  // Crawl: viewers read, operators change.
  route('GET', '/v1/stats', 'viewer', async ({ s }) => ({ body: await getStats(statsDeps(s)) }), {
    summary: 'The crawl at a glance: frontier, fetches, seeds, agents',
  }),
  route(
    'GET',
    '/v1/stats/series',
    'viewer',
    async ({ s, query }) => ({ body: await statsSeries(s, query) }),
    {
      summary: 'Fetch throughput, status classes, latency and duplicates over a time window',
      query: statsSeriesInput,
      output: statsSeriesOutput,
    },
  ),
  route(
    'GET',
    '/v1/dead-letters',
    'viewer',
    async ({ s, query }) => ({ body: await listDeadLetters(s, query) }),
    { summary: 'URLs parked after repeated failures', query: listDeadLettersInput },
  ),
  route(
    'POST',
    '/v1/dead-letters/requeue',
    'operator',
    async (a) => ({ body: await requeueDeadLetters(a.s, callOf(a), a.body) }),
    {
      body: true,
      summary: 'Puts dead letters back into their queues',
      input: requeueDeadLettersInput,
    },
  ),
  route(
    'POST',
    '/v1/seeds',
    'operator',
    async (a) => {
      const out = await addSeeds(a.s, callOf(a), a.body as never, 'api');
      // Invalid entries make the call a 400 that names each of them; the valid ones are applied.
      return {
        status: out.rejected.length > 0 ? 400 : 200,
        body:
          out.rejected.length > 0
            ? {
                error: {
                  code: 'BAD_REQUEST',
                  message: `${out.rejected.length} of the URLs are invalid; the ${out.valid} valid ones were accepted`,
                },
                ...out,
              }
            : out,
      };
    },
    {
      body: true,
      summary: 'Adds seed URLs, optionally to a named seed list',
      input: addSeedsInput,
      output: addSeedsOutput,
    },
  ),
  route(
    'GET',
    '/v1/seeds',
    'viewer',
    async ({ s, query }) => ({ body: await listSeeds(s, query) }),
    {
      summary: 'Stored seeds, oldest first, of one seed list or all',
      query: listSeedsInput,
      output: listSeedsOutput,
    },
  ),
  route(
    'GET',
    '/v1/seed-lists',
    'viewer',
    async ({ s, query }) => ({ body: await listSeedLists(s, query) }),
    {
      summary: 'Seed lists by name, with their sizes',
      query: listSeedListsInput,
      output: listSeedListsOutput,
    },
  ),
  route(
    'GET',
    '/v1/hosts',
    'viewer',
    async ({ s, query }) => ({
      body: await searchHosts({ analytics: s.analytics, policies: s.store.policies }, query),
    }),
    {
      summary: 'Hosts known from fetches or policies, by name',
      query: searchHostsInput,
      output: searchHostsOutput,
    },
  ),
  route(
    'GET',
    '/v1/hosts/:host',
    'viewer',
    async ({ s, params, caller }) => ({
      body: await getHostDetails(s, params.host ?? '', caller.role),
    }),
    {
      summary: 'A host: policy, frontier state, robots.txt, recent fetches and errors, audit',
      output: hostDetailsOutput,
    },
  ),
  route(
    'PUT',
    '/v1/hosts/:host',
    'operator',
    async (a) => ({
      body: await setHostPolicy(hostDeps(a.s), callOf(a), a.params.host ?? '', a.body as never),
    }),
    {
      body: true,
      summary:
        'Sets the policy (rate limit, block, daily budget, allowlist) of a host, or of every host under *.example.com',
      input: hostPolicyPatch,
      output: hostPolicyView,
    },
  ),
  route(
    'GET',
    '/v1/hosts/:host/block-patterns',
    'viewer',
    async ({ s, params }) => ({ body: await listBlockPatterns(s, params.host ?? '') }),
    {
      summary: 'URL block patterns of a host or *.example.com, and those of its domains',
      output: blockPatternsOutput,
    },
  ),
  route(
    'POST',
    '/v1/hosts/:host/block-patterns',
    'operator',
    async (a) => ({
      body: await addBlockPattern(hostDeps(a.s), callOf(a), a.params.host ?? '', a.body),
    }),
    {
      body: SMALL_BODY,
      summary:
        'Adds a URL block pattern (path prefix or glob, path only) to a host or *.example.com; agents drop matching links within seconds (audited)',
      input: blockPatternInput,
      output: blockPatternsOutput,
    },
  ),
  route(
    'DELETE',
    '/v1/hosts/:host/block-patterns',
    'operator',
    async (a) => ({
      body: await removeBlockPattern(hostDeps(a.s), callOf(a), a.params.host ?? '', a.query),
    }),
    {
      summary: 'Removes a URL block pattern of a host or *.example.com (audited)',
      query: removeBlockPatternQuery,
      output: blockPatternsOutput,
    },
  ),
  route(
    'GET',
    '/v1/block-rules',
    'viewer',
    async ({ s }) => ({ body: await listBlockRules(hostDeps(s)) }),
    {
      summary: 'Every block rule agents apply: blocked hosts and URL patterns, with the version',
      output: blockRulesOutput,
    },
  ),
  route(
    'GET',
    '/v1/urls',
    'viewer',
    async ({ s, query }) => ({ body: await inspectUrl(inspectDeps(s), query) }),
    {
      summary: 'Everything known about one URL, and why it was or was not fetched',
      query: inspectUrlInput,
      output: inspectUrlOutput,
    },
  ),
  route(
    'GET',
    '/v1/captures',
    'viewer',
    async ({ s, query }) => ({ body: await readCapture({ warcStore: warcStoreOf(s) }, query) }),
    {
      summary: 'One WARC record read back by its CDX location',
      query: readCaptureInput,
      output: readCaptureOutput,
    },
  ),
  route(
    'GET',
    '/v1/agents',
    'viewer',
    async ({ s, query }) => ({ body: await listAgents(s, query) }),
    {
      summary: 'Agents with their heartbeat, state (alive, dead, stopped), leases and throughput',
      query: listAgentsInput,
      output: listAgentsOutput,
    },
  ),
  route(
    'POST',
    '/v1/agents/:id/release-leases',
    'operator',
    async (a) => ({
      body: await releaseAgentLeases(a.s, callOf(a), { id: a.params.id ?? '' }),
    }),
    {
      summary:
        'Returns a dead agent’s open leases to the queues now (409 while it is alive; audited)',
      output: releaseAgentLeasesOutput,
    },
  ),
  route(
    'GET',
    '/v1/shards',
    'viewer',
    async ({ s, query }) => ({ body: await listShards(s, query) }),
    {
      summary: 'Counters of each logical frontier shard and its Redis node',
      query: listShardsInput,
      output: listShardsOutput,
    },
  ),
  route('GET', '/v1/settings', 'viewer', async ({ s }) => ({ body: await getSettings(s) }), {
    summary: 'Crawl-wide settings in effect',
    output: crawlSettingsView,
  }),
  route(
    'PUT',
    '/v1/settings',
    'admin',
    async (a) => ({ body: await updateSettings(a.s, callOf(a), a.body) }),
    {
      body: SMALL_BODY,
      summary: 'Changes crawl-wide settings (audited)',
      input: crawlSettingsPatch,
      output: crawlSettingsView,
    },
  ),
  route(
    'POST',
    '/v1/frontier/rebuild',
    'admin',
    async (a) => ({ body: await requestFrontierRebuild(a.s, callOf(a)) }),
    {
      summary:
        'Rebuilds the frontier from Postgres and ClickHouse (idempotent; audited); answers when done, or `running` after 20 s',
      output: frontierRebuildStatus,
    },
  ),
  route(
    'GET',
    '/v1/frontier/rebuild',
    'admin',
    async ({ s }) => ({ body: getFrontierRebuild(s) }),
    {
      summary:
        'The latest frontier rebuild of this coordinator: running, done (its report) or failed',
      output: frontierRebuildStatus,
    },
  ),
  publicRoute('GET', '/v1/openapi.json', async () => ({ body: openApiDocument(restRoutes) }), {
    summary: 'This OpenAPI 3.1 document',
  }),

  // Sessions.
  publicRoute(
    'POST',
    '/v1/auth/login',
    async ({ s, request, body }) => ({
      body: { user: await login(sessionDeps(s), request, body) },
    }),
    { body: SMALL_BODY, summary: 'Logs in; sets the crawler_session cookie', input: loginInput },
  ),
  publicRoute('POST', '/v1/auth/logout', async ({ s, request }) => {
    // Logging out with an ended session still clears the cookie.
    const caller = await authenticate(s.store, request.headers).catch(() => null);
    return { body: await logout(sessionDeps(s), request, caller) };
  }),
  route('GET', '/v1/auth/me', 'viewer', async ({ s, caller }) => ({ body: await me(s, caller) })),

  // Users (admin).
  route(
    'GET',
    '/v1/users',
    'admin',
    async ({ s, query }) => ({ body: await listUsers(s, query) }),
    { summary: 'Accounts', query: listUsersInput },
  ),
  route(
    'POST',
    '/v1/users',
    'admin',
    async (a) => ({ body: await createUser(accountDeps(a.s), callOf(a), a.body) }),
    { body: SMALL_BODY, summary: 'Creates an account', input: createUserInput },
  ),
  route(
    'PATCH',
    '/v1/users/:id',
    'admin',
    async (a) => ({
      body: await updateUser(accountDeps(a.s), callOf(a), a.params.id ?? '', a.body),
    }),
    { body: SMALL_BODY, summary: 'Changes an account', input: userPatch },
  ),

  // API tokens: everyone manages their own, admins everyone's.
  route(
    'GET',
    '/v1/tokens',
    'viewer',
    async ({ s, caller, query }) => ({ body: await listTokens(s, caller, query) }),
    { summary: 'API tokens (your own; admins: everyone’s)', query: listTokensInput },
  ),
  route(
    'POST',
    '/v1/tokens',
    'viewer',
    async (a) => ({ body: await createToken(a.s, callOf(a), a.body) }),
    {
      body: SMALL_BODY,
      summary: 'Creates an API token (the secret is shown once)',
      input: createTokenInput,
    },
  ),
  route('DELETE', '/v1/tokens/:id', 'viewer', async (a) => ({
    body: await revokeToken(a.s, callOf(a), a.params.id ?? ''),
  })),

  // Audit log (operators and admins: it names accounts and what they did).
  route(
    'GET',
    '/v1/audit',
    'operator',
    async ({ s, query }) => ({ body: await listAudit(s.store, query) }),
    { summary: 'The audit log, newest first', query: listAuditInput },
  ),
];
