#!/usr/bin/env node
// `npm start`: installs what is missing, generates the Prisma client, compiles the processes
// (`scripts/build.mjs`, when their sources changed) and builds the console, then starts the
// coordinator (which migrates Postgres), AGENT_PROCESSES agents and the console as plain
// `node …/dist/….js` processes, and prints where to open them. `npm run demo` also starts the
// synthetic web and seeds it, so a crawl is visible within a minute.
// Every 10 s it prints one progress line read from the coordinator's GET /v1/stats. A child
// that exits unasked (a crash, `kill -9`, also while starting) is restarted with backoff, the
// reason logged (scripts/supervise.mjs); only one that fails at start by itself 3 times in a row
// stops everything, with its error. SIGTERM or SIGINT (Ctrl-C) to this process — or to npm,
// whose `npm start` execs it — stops everything cleanly: agents drain their leases first, then
// the coordinator stops; a second Ctrl-C kills at once. No child outlives this process (each
// stops itself once it is gone: scripts/stop-with-parent.cjs), and under npm this process stops
// once npm is gone. A port already in use stops start-up before anything starts, naming the
// port and the variable that changes it (scripts/ports.mjs).
// The API needs credentials: on first start an admin password and an admin API token are
// generated into DATA_DIR/admin.json (mode 0600), where the CLI also finds the token.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInterface } from 'node:readline';
import { consoleBuildIsStale } from './console-build-state.mjs';
import { watchParent } from './parent-watch.cjs';
import {
  describeUnavailable,
  listenFailure,
  stackListeners,
  stackPorts,
  unavailable,
} from './ports.mjs';
import { Supervisor } from './supervise.mjs';

const demo = process.argv.includes('--demo');
const env = { ...process.env };
// The system always runs a coordinator here, whose pump spills what a host's head cannot hold to
// Postgres and refills it: bound the heads (docs/CONFIGURATION.md, FRONTIER_HEAD_MAX).
env.FRONTIER_HEAD_MAX ??= '256';

// Agent processes on this machine (same bounds as packages/domain/src/config): half the cores,
// at least one. One agent at full speed keeps about 1.5 cores busy (its event loop and its
// parse thread; measured on 2 cores at 5,000 hosts: 1 process 855 pages/s at 1.50 ms of CPU a
// page, 2 processes 814 pages/s at 1.68 ms with the machine saturated; docs/BENCHMARKS.md).
const defaultAgentProcesses = Math.max(1, Math.floor(availableParallelism() / 2));
function agentProcesses() {
  const raw = (env.AGENT_PROCESSES ?? '').trim();
  if (raw === '') return defaultAgentProcesses;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 256) {
    console.error(
      `✗ Invalid configuration: AGENT_PROCESSES=${JSON.stringify(env.AGENT_PROCESSES)}: expected a ` +
        `whole number from 1 to 256 (default here: ${defaultAgentProcesses}, half of ${availableParallelism()} cores)`,
    );
    process.exit(1);
  }
  return n;
}
const agentCount = agentProcesses();

const ports = stackPorts(env, agentCount, demo);
if (typeof ports === 'string') {
  console.error(`✗ Invalid configuration: ${ports}`);
  process.exit(1);
}
const { coordinatorPort, consolePort, metricsBase, demoPort } = ports;
env.COORDINATOR_URL ??= `http://127.0.0.1:${coordinatorPort}`;
env.NEXT_TELEMETRY_DISABLED = '1';

// Every address the children will listen on, each with the variable that moves it: checked
// now, before anything is installed, built or started.
const listeners = stackListeners(env, agentCount, ports);
const taken = await unavailable(listeners);
if (taken.length > 0) {
  for (const line of describeUnavailable(taken)) console.error(line);
  console.error('✗ nothing was started');
  process.exit(1);
}

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

// Admin credentials: given in the environment, or generated once and kept in DATA_DIR (the
// default ./data, also for the demo, so that `npx crawler` finds the token either way). The
// coordinator creates this admin while it has no users, and stores the token if it is new.
const credentialsFile = join(env.DATA_DIR || 'data', 'admin.json');
function adminCredentials() {
  if (existsSync(credentialsFile)) {
    try {
      return JSON.parse(readFileSync(credentialsFile, 'utf8'));
    } catch (err) {
      console.error(`✗ ${credentialsFile} is not valid JSON (${err.message}); fix or delete it`);
      process.exit(1);
    }
  }
  const created = {
    email: 'admin@crawler.local',
    password: randomBytes(18).toString('base64url'),
    token: `crw_${randomBytes(32).toString('base64url')}`,
    note: 'Generated by npm start. Log in to the console with email/password; send the token as Authorization: Bearer. The password applies only if this admin was the first user.',
  };
  mkdirSync(env.DATA_DIR || 'data', { recursive: true });
  writeFileSync(credentialsFile, JSON.stringify(created, null, 2) + '\n', { mode: 0o600 });
  chmodSync(credentialsFile, 0o600);
  step(`generated admin credentials in ${credentialsFile}`);
  return created;
}
const admin =
  env.ADMIN_TOKEN && env.ADMIN_EMAIL && env.ADMIN_PASSWORD
    ? { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD, token: env.ADMIN_TOKEN }
    : adminCredentials();
env.ADMIN_EMAIL ||= admin.email;
env.ADMIN_PASSWORD ||= admin.password;
env.ADMIN_TOKEN ||= admin.token;
// The console's own credential: the coordinator trusts the browser address the console passes
// (for the login throttle) only with it. Both children get it from here, so a new one per run.
env.CONSOLE_SECRET ||= randomBytes(32).toString('base64url');
// The CLI run from here uses the admin token. The console has none: every user signs in, and
// the console calls the coordinator with that user's session.
env.CRAWLER_API_TOKEN ||= env.ADMIN_TOKEN;

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
// 3. The processes compiled to JavaScript (agent, coordinator, CLI, synthetic web), when a
// source changed since the last build (about a second each); nothing runs through tsx.
run('node', ['scripts/build.mjs', '--if-stale']);
// 4. The console's production build, when missing or older than its sources.
if (consoleBuildIsStale() || env.CRAWLER_REBUILD_CONSOLE === '1') {
  step('building the console (when it changed; takes about a minute)');
  run('npm', ['run', 'build', '-w', '@crawler/console']);
}

// Children, supervised (scripts/supervise.mjs). Each runs node directly (no npx/sh wrappers
// that would swallow signals) in a process group of its own, so stopping it stops everything it
// started. Any exit we did not ask for (a crash, `kill -9`, also while starting) is restarted
// with backoff; only a child that fails at start by itself 3 times in a row (a configuration
// error) stops everything, with its error.
let stopping = false;
const supervisor = new Supervisor({
  onFatal: () => void shutdown(1),
  // A port taken after the check above (a race): stop at once, naming the port and its variable.
  fatalOutput: (proc, line) => listenFailure(proc.name, line, listeners),
});
const procs = supervisor.procs;

/** Starts a supervised `node …args` (see scripts/supervise.mjs for `opts`). */
function start(name, args, opts = {}) {
  return supervisor.start(name, args, { env, ...opts });
}

let progressTimer = null;
async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  if (progressTimer) clearInterval(progressTimer);
  supervisor.stopRestarts();
  console.log('▸ stopping: agents finish their in-flight fetches first…');
  // Agents drain while the coordinator (and the synthetic web, in the demo) still serve them.
  await supervisor.stop(
    procs.filter((p) => p.role === 'agent' || p.role === 'console'),
    45_000,
  );
  await supervisor.stop(
    procs.filter((p) => p.role === 'coordinator'),
    20_000,
  );
  await supervisor.stop(procs, 5_000);
  console.log('▸ stopped');
  process.exit(code);
}

// A terminal's Ctrl-C reaches this process twice: from the terminal (the whole foreground
// group) and passed on by npm. A signal within this long of the first is that same stop.
const ECHO_MS = 1_000;
let firstSignalAt = null;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (firstSignalAt === null) {
      firstSignalAt = Date.now();
      void shutdown(0);
      return;
    }
    if (Date.now() - firstSignalAt < ECHO_MS) return;
    console.error('✗ stopping at once (second signal)');
    supervisor.killAll();
    process.exit(130);
  });
}
// Run by npm (`npm start`, `npm run demo`), this process is npm's child: when npm is gone — it
// was killed with SIGKILL, or a shell between us died of the signal meant for us — stop.
// (Started otherwise, e.g. with nohup, it keeps running when its parent exits.)
if (/\bscripts\/start\.mjs\b/.test(process.env.npm_lifecycle_script ?? '')) {
  const npm = process.ppid;
  watchParent(npm, () => {
    console.error(`✗ npm (pid ${npm}) is gone: stopping`);
    void shutdown(0);
  });
}
// A bug here must not leave the children running on their own.
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (err) => {
    console.error(`✗ npm start failed: ${err?.stack ?? err}`);
    void shutdown(1);
  });
}

/** Waits for shutdown() to end the process (it calls process.exit). */
function halt() {
  return sleep(3_600_000);
}

/** Waits until `url` answers; false when the wait ends first (timeout or stopping). */
async function waitFor(url, what, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && !stopping) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (r.status < 500) return true;
    } catch {}
    await sleep(250);
  }
  if (!stopping) {
    console.error(`✗ ${what} did not come up at ${url}`);
    await shutdown(1);
  }
  return false;
}

// 5. The synthetic web (demo only): a test bed of fake hosts on loopback.
let seedsFile = null;
if (demo) {
  // The demo keeps its own state (database, key prefix, data folder) and a fixed port for the
  // synthetic web, so running it again continues the same crawl and never touches real data.
  env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/crawler_demo';
  env.REDIS_PREFIX ??= 'demo';
  env.DATA_DIR ??= 'data/demo';
  // A demo may run on a Redis that persists nothing (`npm start` refuses one: it is production).
  env.REDIS_VOLATILE_OK ??= 'true';
  mkdirSync('data/synthetic', { recursive: true });
  step(`starting the synthetic web (${env.DEMO_HOSTS ?? '300'} hosts on 127.1.x.x)`);
  const web = start('synthetic-web', [
    'packages/synthetic-web/dist/cli.js',
    'serve',
    '--hosts',
    env.DEMO_HOSTS ?? '300',
    '--seed',
    '1',
    '--port',
    String(demoPort),
    '--out',
    'data/synthetic',
    '--log',
    'data/synthetic/requests.jsonl',
  ]);
  const info = await new Promise((resolve) => {
    createInterface({ input: web.child.stdout }).on('line', (line) => {
      if (line.startsWith('{')) resolve(JSON.parse(line));
    });
  });
  supervisor.markUp(web);
  env.CRAWLER_DNS_MAP = info.dnsMap;
  env.CRAWLER_NETWORK_ALLOW = env.CRAWLER_NETWORK_ALLOW || '127.0.0.0/8';
  env.CRAWLER_DEFAULT_GAP_MS ??= '500';
  seedsFile = info.seeds;
}

// 6. Coordinator (migrates Postgres), agents, console.
step('starting the coordinator');
// Each launch counts as started once /healthz answers (so one that cannot start is told from
// one that crashed later).
const coordinatorProc = start('coordinator', ['apps/coordinator/dist/main.js'], {
  healthUrl: `${env.COORDINATOR_URL}/healthz`,
});
if (!(await waitFor(`${env.COORDINATOR_URL}/healthz`, 'the coordinator'))) await halt();

// Each agent has its own id (stable across restarts, so a restarted agent ships what its
// predecessor left) and metrics port; the parse threads are shared out between them.
const machine = (env.HOSTNAME || hostname()).replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 40) || 'host';
const parseThreads = Math.max(1, Math.floor(availableParallelism() / agentCount) - 1);
step(
  `starting ${agentCount} agent${agentCount === 1 ? '' : 's'} (AGENT_PROCESSES; ` +
    `${env.AGENT_PARSE_THREADS || parseThreads} parse thread(s) each)`,
);
for (let i = 1; i <= agentCount; i++) {
  const agentEnv = { ...env };
  agentEnv.AGENT_ID =
    agentCount === 1 && env.AGENT_ID ? env.AGENT_ID : `${env.AGENT_ID || machine}-${i}`;
  if (metricsBase > 0) agentEnv.AGENT_METRICS_PORT = String(metricsBase + i - 1);
  agentEnv.AGENT_PARSE_THREADS ||= String(parseThreads);
  // glibc keeps freed response bodies in its heap below this size: ~100 MB less RSS with it
  // (docs/BENCHMARKS.md, bounded memory).
  agentEnv.MALLOC_MMAP_THRESHOLD_ ||= '131072';
  start(agentCount === 1 ? 'agent' : `agent-${i}`, ['apps/agent/dist/main.js'], {
    role: 'agent',
    env: agentEnv,
  });
}
step('starting the console');
const consoleProc = start(
  'console',
  ['../../node_modules/next/dist/bin/next', 'start', '-p', String(consolePort), '-H', '127.0.0.1'],
  { cwd: 'apps/console', healthUrl: `http://127.0.0.1:${consolePort}/` },
);
if (!(await waitFor(`http://127.0.0.1:${consolePort}/`, 'the console'))) await halt();

if (seedsFile) {
  const urls = readFileSync(seedsFile, 'utf8').split('\n').filter(Boolean);
  const r = await fetch(`${env.COORDINATOR_URL}/v1/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env.ADMIN_TOKEN}` },
    body: JSON.stringify({ urls }),
  });
  step(`seeded ${urls.length} synthetic hosts (${r.status})`);
}

// The banner names an address only when it answers now, served by our child (up, running).
async function answering(proc, url) {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    const child = proc.child;
    return r.status < 500 && proc.up && child?.exitCode === null && child.signalCode === null;
  } catch {
    return false;
  }
}
const [consoleAnswers, apiAnswers] = await Promise.all([
  answering(consoleProc, `http://127.0.0.1:${consolePort}/`),
  answering(coordinatorProc, `${env.COORDINATOR_URL}/healthz`),
]);
const silent = (name) => `not answering (yet): see the [${name}] lines above`;
if (stopping) await halt();
console.log(`
  Console  ${consoleAnswers ? `http://127.0.0.1:${consolePort}` : silent('console')}
  API      ${apiAnswers ? `${env.COORDINATOR_URL}/v1/stats   (REST /v1, tRPC /trpc; Authorization: Bearer <token>)` : silent('coordinator')}
  Sign in  ${env.ADMIN_EMAIL}; password and API token in ${credentialsFile}
  Seeds    npx crawler seeds add https://example.com/   (the CLI reads the token from there)
  Agents   ${agentCount} process${agentCount === 1 ? '' : 'es'} (AGENT_PROCESSES); progress every 10 s
  Stop     Ctrl-C, or kill -TERM ${process.pid}
`);

// 7. One progress line every 10 s, from GET /v1/stats.
const fmt = (n) => Math.round(n).toLocaleString('en-US');
async function progress() {
  const clock = new Date().toTimeString().slice(0, 8);
  let s;
  try {
    const r = await fetch(`${env.COORDINATOR_URL}/v1/stats`, {
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
      signal: AbortSignal.timeout(5_000),
    });
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    s = await r.json();
  } catch (err) {
    if (!stopping) console.log(`[${clock}] stats unavailable: ${err.message}`);
    return;
  }
  if (stopping) return;
  const total = s.fetches.total;
  // The coordinator's figure: fetches of the last 30 s by when they were made, 0 while no agent
  // is alive. (Counting rows as they were ingested showed a rate while a backlog drained after
  // every agent had died.)
  const rate = s.fetches.pagesPerSecond;
  const dead = s.agents.dead > 0 ? `, ${s.agents.dead} dead` : '';
  const errorShare = total > 0 ? ` (${((100 * s.fetches.errors) / total).toFixed(1)}%)` : '';
  console.log(
    `[${clock}] ${rate < 10 ? rate.toFixed(1) : fmt(rate)} pages/s · ` +
      `queued ${fmt(s.frontier.queuedUrls)} · hosts ready ${fmt(s.frontier.readyHosts)} · ` +
      `leases ${fmt(s.frontier.openLeases)} · errors ${fmt(s.fetches.errors)}${errorShare} · ` +
      `agents ${s.agents.alive}/${agentCount} alive${dead}`,
  );
}
if (!stopping) {
  progressTimer = setInterval(() => void progress(), 10_000);
}
