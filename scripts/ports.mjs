// The addresses `npm start` listens on, each with the variable that changes it, checked before
// anything starts: a port held by another process stops start-up at once, naming the port and
// the variable (a child restarted onto a taken port would only fail again, and a health check
// answered by the other process would look like ours).
import { createServer } from 'node:net';

/**
 * A port variable of the environment: its value, or `fallback` when unset; null when it is not a
 * whole number from `min` to 65535 (the caller reports it).
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name
 * @param {number} fallback
 * @param {number} [min] 0 where 0 means "off" or "any free port"
 */
function portFrom(env, name, fallback, min = 0) {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return fallback;
  const n = Number(raw);
  return /^\d+$/.test(raw) && n >= min && n <= 65535 ? n : null;
}

/**
 * The ports of `npm start` from the environment, with the defaults of packages/domain/src/config
 * (demoPort: the synthetic web's, 0 without the demo), or what is wrong with them.
 * @param {NodeJS.ProcessEnv} env
 * @param {number} agentCount agent n listens on AGENT_METRICS_PORT + n − 1
 * @param {boolean} demo
 * @returns {{ coordinatorPort: number, coordinatorMetricsPort: number, metricsBase: number,
 *   consolePort: number, demoPort: number } | string}
 */
export function stackPorts(env, agentCount, demo) {
  const wanted = [
    ['coordinatorPort', 'COORDINATOR_PORT', 4000, 1],
    ['coordinatorMetricsPort', 'COORDINATOR_METRICS_PORT', 9463, 0],
    ['metricsBase', 'AGENT_METRICS_PORT', 9464, 0],
    ['consolePort', 'CONSOLE_PORT', 3000, 1],
    ['demoPort', 'DEMO_PORT', 8480, 0],
  ];
  const ports = { demoPort: 0 };
  for (const [key, name, fallback, min] of demo ? wanted : wanted.slice(0, -1)) {
    const n = portFrom(env, name, fallback, min);
    if (n === null)
      return `${name}=${JSON.stringify(env[name])}: expected a port from ${min} to 65535`;
    ports[key] = n;
  }
  if (ports.metricsBase > 0 && ports.metricsBase + agentCount - 1 > 65535)
    return (
      `AGENT_METRICS_PORT=${ports.metricsBase} with ${agentCount} agents: agent n listens on ` +
      'AGENT_METRICS_PORT + n − 1, past 65535'
    );
  return ports;
}

/**
 * @typedef {{ what: string, host: string, port: number, variable: string, hint?: string }} Listener
 * `what` listens on `host:port`; the environment variable `variable` changes the port (`hint`
 * adds how, after it).
 */

/** How to get a listener onto another port. */
function fix(l) {
  return `stop what holds it, or set ${l.variable} to a free port${l.hint ?? ''}`;
}

/**
 * What `npm start` (`npm run demo` with `demoPort`) listens on: the coordinator's API and
 * metrics, each agent's metrics, the console, and the synthetic web's address per host.
 * @param {NodeJS.ProcessEnv} env for the hosts (COORDINATOR_HOST, …, DEMO_HOSTS)
 * @param {number} agentCount
 * @param {Exclude<ReturnType<typeof stackPorts>, string>} p the ports, 0 = none
 * @returns {Listener[]}
 */
export function stackListeners(env, agentCount, p) {
  const host = (name) => env[name] || '127.0.0.1';
  const listeners = [
    {
      what: 'the coordinator API',
      host: host('COORDINATOR_HOST'),
      port: p.coordinatorPort,
      variable: 'COORDINATOR_PORT',
    },
    {
      what: "the coordinator's metrics",
      host: host('COORDINATOR_METRICS_HOST'),
      port: p.coordinatorMetricsPort,
      variable: 'COORDINATOR_METRICS_PORT',
      hint: ' (0 turns them off)',
    },
    ...Array.from({ length: p.metricsBase > 0 ? agentCount : 0 }, (_, i) => ({
      what: `agent ${i + 1}'s metrics`,
      host: host('AGENT_METRICS_HOST'),
      port: p.metricsBase + i,
      variable: 'AGENT_METRICS_PORT',
      hint: ' (agent n listens on AGENT_METRICS_PORT + n − 1; 0 turns agent metrics off)',
    })),
    { what: 'the console', host: '127.0.0.1', port: p.consolePort, variable: 'CONSOLE_PORT' },
  ];
  // One address per synthetic host, 127.1.(1 + i / 250).(1 + i % 250) (synthetic-web's hostIp).
  const hosts = p.demoPort > 0 ? Math.min(Number(env.DEMO_HOSTS ?? 300) || 0, 250 * 254) : 0;
  for (let i = 0; i < hosts; i++) {
    listeners.push({
      what: 'the synthetic web',
      host: `127.1.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`,
      port: p.demoPort,
      variable: 'DEMO_PORT',
    });
  }
  return listeners;
}

/** Whether `host:port` can be listened on now: null if so, else the error code (EADDRINUSE…). */
function tryListen(host, port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err) => resolve(err.code ?? String(err)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/**
 * The listeners that cannot listen now (their port in use, or not allowed), with the error code;
 * those on port 0 (off, or any free port) are not checked.
 * @param {Listener[]} listeners
 * @returns {Promise<Array<Listener & { code: string }>>}
 */
export async function unavailable(listeners) {
  const failed = [];
  const checked = listeners.filter((l) => l.port > 0);
  // Batches: the synthetic web alone has one address per host.
  for (let i = 0; i < checked.length; i += 500) {
    const batch = checked.slice(i, i + 500);
    const codes = await Promise.all(batch.map((l) => tryListen(l.host, l.port)));
    batch.forEach((l, j) => {
      if (codes[j] !== null) failed.push({ ...l, code: codes[j] });
    });
  }
  return failed;
}

/**
 * One line per port and variable that failed (the synthetic web's addresses share one).
 * @param {Array<Listener & { code: string }>} failed
 */
export function describeUnavailable(failed) {
  const groups = new Map();
  for (const f of failed) {
    const key = `${f.what}\0${f.port}\0${f.code}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { ...f, count: 1 });
  }
  return [...groups.values()].map((g) => {
    const where =
      g.count > 1 ? `${g.host}:${g.port} and ${g.count - 1} more` : `${g.host}:${g.port}`;
    const why =
      g.code === 'EADDRINUSE'
        ? 'is in use by another process'
        : `cannot be listened on (${g.code})`;
    return `✗ port ${g.port} ${why} (${g.what}, ${where}): ${fix(g)}`;
  });
}

/**
 * The reason to stop everything in a child's output line saying its listen failed (Node:
 * `listen EADDRINUSE: address already in use 127.0.0.1:3000`), or null.
 * @param {string} name the child
 * @param {string} line
 * @param {Listener[]} listeners to name the variable of the port
 */
export function listenFailure(name, line, listeners) {
  const m = /\b(EADDRINUSE|EACCES|EADDRNOTAVAIL)\b.*?(\S+):(\d+)\s*$/.exec(line);
  if (!m || !/listen|address/i.test(line)) return null;
  const port = Number(m[3]);
  const l = listeners.find((x) => x.port === port);
  const how = l ? `: ${fix(l)}` : '';
  const what = m[1] === 'EADDRINUSE' ? 'it is in use by another process' : m[1];
  return `${name} could not listen on ${m[2]}:${port} (${what})${how}`;
}
