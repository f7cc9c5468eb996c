import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  describeUnavailable,
  listenFailure,
  stackListeners,
  stackPorts,
  unavailable,
} from './ports.mjs';

// The ports `npm start` checks before it starts anything (scripts/ports.mjs), against real
// sockets held by this test.
const held: Server[] = [];
afterEach(async () => {
  for (const s of held.splice(0)) await new Promise((resolve) => s.close(resolve));
});

async function hold(host = '127.0.0.1', port = 0): Promise<number> {
  const s = createServer();
  s.listen({ host, port, exclusive: true });
  await once(s, 'listening');
  held.push(s);
  return (s.address() as AddressInfo).port;
}

function portsOf(env: NodeJS.ProcessEnv, agents = 1, demo = false) {
  const p = stackPorts(env, agents, demo);
  if (typeof p === 'string') throw new Error(p);
  return p;
}

describe('npm start ports', () => {
  it('takes the defaults of the configuration and refuses what is not a port', () => {
    expect(portsOf({})).toEqual({
      coordinatorPort: 4000,
      coordinatorMetricsPort: 9463,
      metricsBase: 9464,
      consolePort: 3000,
      demoPort: 0,
    });
    expect(portsOf({}, 1, true).demoPort).toBe(8480);
    expect(stackPorts({ CONSOLE_PORT: '3000x' }, 1, false)).toBe(
      'CONSOLE_PORT="3000x": expected a port from 1 to 65535',
    );
    expect(stackPorts({ COORDINATOR_PORT: '0' }, 1, false)).toMatch(/^COORDINATOR_PORT="0"/);
    // Not the demo: its port is not read.
    expect(typeof stackPorts({ DEMO_PORT: 'x' }, 1, false)).toBe('object');
    expect(stackPorts({ AGENT_METRICS_PORT: '65535' }, 2, false)).toMatch(/past 65535/);
  });

  it('lists each agent’s metrics port and one synthetic-web address per host', () => {
    const env = { AGENT_METRICS_PORT: '9500', DEMO_HOSTS: '260' };
    const listeners = stackListeners(env, 3, portsOf(env, 3, true));
    expect(listeners.filter((l) => l.variable === 'AGENT_METRICS_PORT').map((l) => l.port)).toEqual(
      [9500, 9501, 9502],
    );
    const web = listeners.filter((l) => l.variable === 'DEMO_PORT');
    expect(web).toHaveLength(260);
    expect([web[0]!.host, web[249]!.host, web[250]!.host]).toEqual([
      '127.1.1.1',
      '127.1.1.250',
      '127.1.2.1',
    ]);
    const off = { AGENT_METRICS_PORT: '0', COORDINATOR_METRICS_PORT: '0' };
    expect(stackListeners(off, 2, portsOf(off, 2)).map((l) => l.variable)).toEqual([
      'COORDINATOR_PORT',
      'COORDINATOR_METRICS_PORT',
      'CONSOLE_PORT',
    ]);
  });

  it('finds a port another process holds and names it with the variable that moves it', async () => {
    const taken = await hold();
    const free = await hold();
    held.pop()!.close();
    const env = {
      COORDINATOR_PORT: String(free),
      CONSOLE_PORT: String(taken),
      COORDINATOR_METRICS_PORT: '0',
      AGENT_METRICS_PORT: '0',
    };
    const failed = await unavailable(stackListeners(env, 1, portsOf(env)));
    expect(failed.map((f) => [f.variable, f.port, f.code])).toEqual([
      ['CONSOLE_PORT', taken, 'EADDRINUSE'],
    ]);
    expect(describeUnavailable(failed)).toEqual([
      `✗ port ${taken} is in use by another process (the console, 127.0.0.1:${taken}): ` +
        'stop what holds it, or set CONSOLE_PORT to a free port',
    ]);
  });

  it('a process on all addresses takes the synthetic web’s port on every host', async () => {
    const port = await hold('0.0.0.0');
    const env = {
      DEMO_PORT: String(port),
      DEMO_HOSTS: '5',
      COORDINATOR_METRICS_PORT: '0',
      AGENT_METRICS_PORT: '0',
    };
    const web = stackListeners(env, 1, portsOf(env, 1, true)).filter(
      (l) => l.variable === 'DEMO_PORT',
    );
    expect(describeUnavailable(await unavailable(web))).toEqual([
      `✗ port ${port} is in use by another process (the synthetic web, 127.1.1.1:${port} and 4 more): ` +
        'stop what holds it, or set DEMO_PORT to a free port',
    ]);
  });

  it('reads a failed listen in a child’s output (Node’s and Next’s wording)', () => {
    const env = { CONSOLE_PORT: '3100' };
    const listeners = stackListeners(env, 1, portsOf(env));
    expect(
      listenFailure(
        'console',
        'Error: listen EADDRINUSE: address already in use 127.0.0.1:3100',
        listeners,
      ),
    ).toBe(
      'console could not listen on 127.0.0.1:3100 (it is in use by another process): ' +
        'stop what holds it, or set CONSOLE_PORT to a free port',
    );
    expect(listenFailure('console', "  code: 'EADDRINUSE',", listeners)).toBeNull();
    expect(listenFailure('agent', 'fetch failed: ECONNREFUSED 127.0.0.1:3100', listeners)).toBe(
      null,
    );
  });
});
