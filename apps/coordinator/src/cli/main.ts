import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '@crawler/domain/config';
import { CrawlerError } from '@crawler/domain/errors';
import { createLogger } from '@crawler/adapters/log';
import { formatRefusals, oneShotCrawl } from './one-shot-crawl';
import { defaultAgentProcesses } from './one-shot-agents';
import { apiCall } from './api-call';
import { ACCOUNT_USAGE, auditCommand, tokensCommand, usersCommand } from './account-commands';
import { BLOCK_PATTERN_USAGE, blockPatternCommand } from './block-pattern-command';
import { SHARDS_USAGE, shardsCommand } from './shard-commands';
import { print, UsageError } from './cli-output';

const USAGE = `crawler — a polite web crawler

Usage:
  crawler crawl --seeds FILE [--duration S] [--max-pages N] [--out DIR] [--ua-token T]
                [--gap-ms MS] [--depth N] [--allow CIDR,...] [--dns-map FILE] [--concurrency N]
                [--agents N]
      One-shot crawl from the terminal: needs only Redis. Writes WARC files, an embedded
      ClickHouse with one row per fetch, and summary.json under --out (default ./out), and
      nothing elsewhere. Ends once nothing fetchable is left; counts what it refused, and why.
      --agents: agent processes (default AGENT_PROCESSES, else half the cores, at least 1);
      --concurrency: hosts each agent crawls at once (AGENT_MAX_HOSTS).
  crawler seeds add [--file FILE] [--priority N] [--list NAME] [--sitemap] [URL ...]
                                    add seeds through the API (to a named seed list);
                                    --sitemap: every URL is a sitemap whose URLs are enqueued
                                    (*.xml, *.xml.gz, sitemap*.txt are taken as sitemaps anyway)
  crawler seeds list [--list NAME] [--limit N] [--cursor C]  stored seeds, oldest first
  crawler seeds lists                                        seed lists and their sizes
  crawler stats                                              crawl counters from the API
  crawler hosts get HOST                                     a host's policy and queue
  crawler hosts set HOST [--rate RPS|default] [--block | --unblock | --inherit-block]
                    [--budget PAGES|default] [--allowlist | --no-allowlist]
                    [--connections N|default]
                                    change the policy of a host, or of *.example.com
${BLOCK_PATTERN_USAGE}
  crawler dead-letters [--limit N]                           URLs that kept failing, with the error
  crawler dead-letters requeue [--host HOST] [--limit N]     put them back in their queues
  crawler frontier rebuild          (admin) re-create the frontier in Redis from Postgres and
                                    ClickHouse after Redis lost it: seeds, policies, known URLs,
                                    re-crawl schedule; idempotent. Prints what it restored
${SHARDS_USAGE}
${ACCOUNT_USAGE}

The API is COORDINATOR_URL (default http://127.0.0.1:4000). API commands send the token in
CRAWLER_API_TOKEN, or else the admin token \`npm start\` wrote to DATA_DIR/admin.json. Every
setting is also an environment variable (see docs/CONFIGURATION.md); flags win over the
environment.`;

async function main(argv: string[]): Promise<number> {
  const [command, sub] = argv;
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return 0;
  }
  if (command === 'crawl') return crawl(argv.slice(1));
  if (command === 'seeds' && sub === 'add') return seedsAdd(argv.slice(2));
  if (command === 'seeds' && sub === 'list') return seedsList(argv.slice(2));
  if (command === 'seeds' && sub === 'lists') return print(await apiCall('GET', '/v1/seed-lists'));
  if (command === 'stats') return print(await apiCall('GET', '/v1/stats'));
  if (command === 'hosts' && sub === 'get' && argv[2])
    return print(await apiCall('GET', `/v1/hosts/${encodeURIComponent(argv[2])}`));
  if (command === 'hosts' && sub === 'set' && argv[2]) return hostsSet(argv[2], argv.slice(3));
  if (command === 'hosts' && sub === 'block-pattern') return blockPatternCommand(argv.slice(2));
  if (command === 'dead-letters')
    return deadLetters(sub === 'requeue', argv.slice(sub === 'requeue' ? 2 : 1));
  if (command === 'frontier' && sub === 'rebuild') return frontierRebuild();
  if (command === 'shards') return shardsCommand(sub, argv.slice(2));
  if (command === 'tokens') return tokensCommand(sub, argv.slice(2));
  if (command === 'users') return usersCommand(sub, argv.slice(2));
  if (command === 'audit') return auditCommand(argv.slice(1));
  console.error(`unknown command: ${argv.join(' ')}\n\n${USAGE}`);
  return 2;
}

async function crawl(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      seeds: { type: 'string' },
      duration: { type: 'string', default: '120' },
      'max-pages': { type: 'string', default: '0' },
      out: { type: 'string', default: './out' },
      'ua-token': { type: 'string' },
      'gap-ms': { type: 'string' },
      depth: { type: 'string' },
      allow: { type: 'string' },
      'dns-map': { type: 'string' },
      concurrency: { type: 'string' },
      agents: { type: 'string' },
    },
  });
  if (!values.seeds) throw new UsageError('crawl needs --seeds FILE (one URL per line)');
  const seeds = readFileSync(values.seeds, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const config = loadConfig({
    ...process.env,
    REDIS_PREFIX: `oneshot-${randomBytes(4).toString('hex')}`,
    ...(values['ua-token'] ? { CRAWLER_UA_TOKEN: values['ua-token'] } : {}),
    ...(values['gap-ms'] ? { CRAWLER_DEFAULT_GAP_MS: values['gap-ms'] } : {}),
    ...(values.depth ? { CRAWLER_MAX_DEPTH: values.depth } : {}),
    ...(values.allow ? { CRAWLER_NETWORK_ALLOW: values.allow } : {}),
    ...(values['dns-map'] ? { CRAWLER_DNS_MAP: values['dns-map'] } : {}),
    ...(values.concurrency ? { AGENT_MAX_HOSTS: values.concurrency } : {}),
  });
  const durationS = positive(values.duration, '--duration');
  const agents = values.agents
    ? positive(values.agents, '--agents')
    : defaultAgentProcesses(config);
  if (!Number.isInteger(agents) || agents > 256)
    throw new UsageError(`--agents must be a whole number from 1 to 256, got ${values.agents}`);
  const maxPages = Math.max(0, Number(values['max-pages']));
  const outDir = resolve(values.out);
  const log = createLogger('crawl', process.env.LOG_LEVEL ?? 'warn');
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  process.once('SIGTERM', () => abort.abort());
  console.error(
    `crawling ${seeds.length} seeds for up to ${durationS}s with ${agents} agent process${agents === 1 ? '' : 'es'} → ${outDir} (Ctrl-C stops cleanly)`,
  );
  const summary = await oneShotCrawl(
    config,
    log,
    {
      seeds,
      durationS,
      maxPages,
      outDir,
      agents,
      onProgress: (p) =>
        console.error(
          `[${p.elapsedS.toFixed(0).padStart(4)}s] ${p.pages} pages  ${p.pagesPerS.toFixed(1)} pages/s  frontier ${p.queued} URLs on ${p.hosts} hosts  errors ${p.errors}  ${formatRefusals(p.refused)}`,
        ),
    },
    abort.signal,
  );
  writeFileSync(join(outDir, 'summary.json'), JSON.stringify(summary, null, 2));
  for (const r of summary.rejectedSeeds) console.error(`seed refused: ${r.url} (${r.reason})`);
  console.error(
    `done (${summary.stoppedBy}): ${summary.pages} pages in ${summary.seconds.toFixed(1)}s, ${summary.errors} errors, ${formatRefusals(summary.refused)}; ${summary.warcFiles} WARC files in ${summary.warcDir}`,
  );
  console.log(JSON.stringify(summary));
  return 0;
}

async function seedsAdd(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      file: { type: 'string' },
      priority: { type: 'string', default: '1' },
      list: { type: 'string' },
      sitemap: { type: 'boolean', default: false },
    },
  });
  const urls = [...positionals];
  if (values.file)
    urls.push(
      ...readFileSync(values.file, 'utf8')
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#')),
    );
  if (urls.length === 0) throw new UsageError('seeds add needs URLs or --file FILE');
  const out = await apiCall(
    'POST',
    '/v1/seeds',
    {
      urls,
      priority: Number(values.priority),
      ...(values.list ? { list: values.list } : {}),
      ...(values.sitemap ? { sitemap: true } : {}),
    },
    { allow400: true },
  );
  return print(out, (out as { rejected?: unknown[] }).rejected?.length ? 1 : 0);
}

async function seedsList(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { list: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } },
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined) query.set(k, v);
  return print(await apiCall('GET', `/v1/seeds?${query.toString()}`));
}

async function hostsSet(host: string, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      rate: { type: 'string' },
      block: { type: 'boolean' },
      unblock: { type: 'boolean' },
      'inherit-block': { type: 'boolean' },
      budget: { type: 'string' },
      allowlist: { type: 'boolean' },
      'no-allowlist': { type: 'boolean' },
      connections: { type: 'string' },
    },
  });
  // "default" clears a field: the host falls back to a pattern, then to the crawl default.
  const patch: Record<string, unknown> = {};
  if (values.rate !== undefined)
    patch.rate_limit_rps = values.rate === 'default' ? null : Number(values.rate);
  if (values.block) patch.blocked = true;
  if (values.unblock) patch.blocked = false;
  if (values['inherit-block']) patch.blocked = null;
  if (values.budget !== undefined)
    patch.daily_budget = values.budget === 'default' ? null : Number(values.budget);
  if (values.allowlist) patch.allowlisted = true;
  if (values['no-allowlist']) patch.allowlisted = null;
  if (values.connections !== undefined)
    patch.max_connections = values.connections === 'default' ? null : Number(values.connections);
  return print(await apiCall('PUT', `/v1/hosts/${encodeURIComponent(host)}`, patch));
}

async function deadLetters(requeue: boolean, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { host: { type: 'string' }, limit: { type: 'string' } },
  });
  if (!requeue)
    return print(
      await apiCall('GET', `/v1/dead-letters?limit=${encodeURIComponent(values.limit ?? '100')}`),
    );
  const body: Record<string, unknown> = {};
  if (values.host) body.host = values.host;
  if (values.limit) body.limit = Number(values.limit);
  return print(await apiCall('POST', '/v1/dead-letters/requeue', body));
}

/**
 * Starts a rebuild and follows it: the coordinator answers when it is done or, for a large crawl,
 * says `running` after 20 s; then its status is asked every 2 s. Prints the final status.
 */
async function frontierRebuild(): Promise<number> {
  type Status = { status: string };
  let out = (await apiCall('POST', '/v1/frontier/rebuild')) as Status;
  while (out.status === 'running') {
    await new Promise((r) => setTimeout(r, 2000));
    out = (await apiCall('GET', '/v1/frontier/rebuild')) as Status;
  }
  return print(out, out.status === 'done' ? 0 : 1);
}

function positive(v: string | undefined, flag: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive number, not "${v ?? ''}"`);
  return n;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError)
      console.error(`error: ${err.message}\n(run \`crawler help\`)`);
    // A coded error (CrawlerError: the API's code for a refused call) names its code, so scripts
    // can branch on it rather than on the message.
    else if (err instanceof CrawlerError) console.error(`error [${err.code}]: ${err.message}`);
    else console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
