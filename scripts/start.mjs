#!/usr/bin/env node
// `npm start`: installs what is missing, generates the Prisma client, builds the console, then
// starts the coordinator (which migrates Postgres), one agent and the console, and prints where
// to open them. `npm run demo` also starts the synthetic web and seeds it, so a crawl is visible
// within a minute. Ctrl-C stops everything cleanly (agents drain their leases first).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInterface } from 'node:readline';

const demo = process.argv.includes('--demo');
const env = { ...process.env };
const coordinatorPort = env.COORDINATOR_PORT ?? '4000';
const consolePort = env.CONSOLE_PORT ?? '3000';
env.COORDINATOR_URL ??= `http://127.0.0.1:${coordinatorPort}`;
env.NEXT_TELEMETRY_DISABLED = '1';

function step(msg) {
  console.log(`▸ ${msg}`);
}
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env, ...opts });
  if (r.status !== 0) {
    console.error(`✗ ${cmd} ${args.join(' ')} failed (exit ${r.status})`);
    process.exit(1);
  }
}
function newer(a, b) {
  return !existsSync(b) || statSync(a).mtimeMs > statSync(b).mtimeMs;
}

// 1. Dependencies, from the lockfile.
if (
  !existsSync('node_modules/.package-lock.json') ||
  newer('package-lock.json', 'node_modules/.package-lock.json')
) {
  step('installing dependencies (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}
// 2. Prisma client (no engine download needed).
if (
  !existsSync('apps/coordinator/src/db/generated/client.ts') ||
  newer('prisma/schema.prisma', 'apps/coordinator/src/db/generated/client.ts')
) {
  step('generating the Prisma client');
  run('node', ['scripts/prisma-generate.mjs', '--quiet']);
}
// 3. The console's production build, when missing.
if (!existsSync('apps/console/.next/BUILD_ID') || env.CRAWLER_REBUILD_CONSOLE === '1') {
  step('building the console (first start only; takes about a minute)');
  run('npm', ['run', 'build', '-w', '@crawler/console']);
}

const children = [];
let stopping = false;
// Each child runs node directly (no npx/sh wrappers that would swallow signals) in a process
// group of its own, so stopping it stops everything it started.
function start(name, args, opts = {}) {
  const child = spawn(process.execPath, args, {
    env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const prefix = `[${name}]`.padEnd(14);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => console.log(`${prefix}${line}`));
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`✗ ${name} exited (${signal ?? code}); stopping everything`);
      void shutdown(1);
    }
  });
  children.push(child);
  return child;
}
async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log('▸ stopping (agents finish their in-flight fetches first)…');
  for (const c of [...children].reverse()) signalGroup(c, 'SIGTERM');
  const deadline = Date.now() + 20_000;
  while (
    children.some((c) => c.exitCode === null && c.signalCode === null) &&
    Date.now() < deadline
  )
    await sleep(100);
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null) signalGroup(c, 'SIGKILL');
  process.exit(code);
}
function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

async function waitFor(url, what, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && !stopping) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (r.status < 500) return;
    } catch {}
    await sleep(250);
  }
  if (!stopping) {
    console.error(`✗ ${what} did not come up at ${url}`);
    await shutdown(1);
  }
}

// 4. The synthetic web (demo only): a test bed of fake hosts on loopback.
let seedsFile = null;
if (demo) {
  // The demo keeps its own state (database, key prefix, data folder) and a fixed port for the
  // synthetic web, so running it again continues the same crawl and never touches real data.
  env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/crawler_demo';
  env.REDIS_PREFIX ??= 'demo';
  env.DATA_DIR ??= 'data/demo';
  mkdirSync('data/synthetic', { recursive: true });
  step('starting the synthetic web (300 hosts on 127.1.x.x)');
  const web = start('synthetic-web', [
    '--import',
    'tsx',
    'packages/synthetic-web/src/cli.ts',
    'serve',
    '--hosts',
    env.DEMO_HOSTS ?? '300',
    '--seed',
    '1',
    '--port',
    env.DEMO_PORT ?? '8480',
    '--out',
    'data/synthetic',
    '--log',
    'data/synthetic/requests.jsonl',
  ]);
  const info = await new Promise((resolve) => {
    createInterface({ input: web.stdout }).on('line', (line) => {
      if (line.startsWith('{')) resolve(JSON.parse(line));
    });
  });
  env.CRAWLER_DNS_MAP = info.dnsMap;
  env.CRAWLER_NETWORK_ALLOW = env.CRAWLER_NETWORK_ALLOW || '127.0.0.0/8';
  env.CRAWLER_DEFAULT_GAP_MS ??= '500';
  seedsFile = info.seeds;
}

// 5. Coordinator (migrates Postgres), agent, console.
step('starting the coordinator');
start('coordinator', ['--import', 'tsx', 'apps/coordinator/src/main.ts']);
await waitFor(`${env.COORDINATOR_URL}/healthz`, 'the coordinator');
step('starting an agent');
start('agent', ['--import', 'tsx', 'apps/agent/src/main.ts']);
step('starting the console');
start(
  'console',
  ['../../node_modules/next/dist/bin/next', 'start', '-p', consolePort, '-H', '127.0.0.1'],
  {
    cwd: 'apps/console',
  },
);
await waitFor(`http://127.0.0.1:${consolePort}/`, 'the console');

if (seedsFile) {
  const urls = readFileSync(seedsFile, 'utf8').split('\n').filter(Boolean);
  const r = await fetch(`${env.COORDINATOR_URL}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ urls }),
  });
  step(`seeded ${urls.length} synthetic hosts (${r.status})`);
}

console.log(`
  Console  http://127.0.0.1:${consolePort}
  API      ${env.COORDINATOR_URL}/v1/stats   (REST /v1, tRPC /trpc)
  Seeds    npx crawler seeds add https://example.com/
  Stop     Ctrl-C
`);
