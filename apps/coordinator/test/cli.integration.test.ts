import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthKit, type AuthKit } from './auth-kit';

// The `crawler` command as automation runs it: a child process talking to a real coordinator
// with an API token from the environment. Exit codes and JSON output are what scripts rely on.
let kit: AuthKit;

const crawler = (args: string[], as: 'operator' | 'viewer' = 'operator') => kit.cli(args, as);

beforeAll(async () => {
  kit = await startAuthKit('cli');
}, 60_000);

afterAll(async () => {
  await kit?.stop();
});

describe('crawler CLI', () => {
  it('adds seeds, sets a pattern policy and reads a host and the stats', async () => {
    const seeds = await crawler([
      'seeds',
      'add',
      '--list',
      'cli-list',
      'https://cli.example/',
      'notaurl',
    ]);
    expect(seeds.code).toBe(1); // one refused
    expect(JSON.parse(seeds.out)).toMatchObject({
      added: 1,
      list: 'cli-list',
      rejected: [{ index: 1 }],
    });
    const listed = await crawler(['seeds', 'list', '--list', 'cli-list'], 'viewer');
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out)).toMatchObject({
      items: [{ url: 'https://cli.example/', lists: ['cli-list'] }],
      next_cursor: null,
    });
    const lists = await crawler(['seeds', 'lists'], 'viewer');
    expect(JSON.parse(lists.out)).toMatchObject({ items: [{ name: 'cli-list', seeds: 1 }] });

    const set = await crawler([
      'hosts',
      'set',
      '*.cli.example',
      '--budget',
      '500',
      '--connections',
      '2',
      '--rate',
      '0.5',
    ]);
    expect(set.code, set.err).toBe(0);
    expect(JSON.parse(set.out)).toMatchObject({
      host: '*.cli.example',
      kind: 'suffix',
      daily_budget: 500,
      max_connections: 2,
      rate_limit_rps: 0.5,
      hosts_updated: 1,
    });
    const get = await crawler(['hosts', 'get', 'cli.example'], 'viewer');
    expect(get.code, get.err).toBe(0);
    expect((JSON.parse(get.out) as { policy: unknown }).policy).toMatchObject({
      effective_gap_ms: 2000,
      effective_daily_budget: 500,
      effective_max_connections: 2,
      patterns: ['*.cli.example'],
    });
    const stats = await crawler(['stats'], 'viewer');
    expect(stats.code, stats.err).toBe(0);
    expect(JSON.parse(stats.out)).toHaveProperty('frontier');
  });

  it('fails with the API code and message and a non-zero exit when the role is too low', async () => {
    const res = await crawler(['hosts', 'set', 'cli.example', '--block'], 'viewer');
    expect(res.code).not.toBe(0);
    expect(res.err).toMatch(/^error \[FORBIDDEN\]: .*operator/m);
  });
});
