import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnalytics, type AnalyticsStore, type FetchRow } from '@crawler/analytics';
import { dropDatabase, migrate } from '../db/migrate';
import { createDb, type Db } from '../db/prisma';
import { HostPolicyRepository } from '../db/host-policy-repository';
import { searchHosts } from './search-hosts';
import type { HostListItem } from './search-hosts.types';

// The host list against a reference computed from the rows themselves, on a real embedded
// ClickHouse and Postgres: every page of every search, with replayed fetches (counted once),
// hosts only refused by robots.txt, hosts known only from a policy, names whose byte order is
// not their alphabetical order.
const T0 = Date.UTC(2026, 10, 29, 22, 0, 0);
const HOSTS = [
  ...Array.from({ length: 40 }, (_, i) => `h${i}.list.example`),
  'a-b.list.example',
  'a.list.example',
  'a0.list.example',
  'xn--bcher-kva.list.example',
  'z.other.test',
];
const ROBOTS_ONLY = 'robots-only.list.example';
const POLICY_ONLY = ['policy-a.list.example', 'h7-policy.list.example', 'zz.other.test'];

function row(i: number): FetchRow {
  const host = HOSTS[i % HOSTS.length]!;
  const status = [200, 404, 503, 0, 301, 200, 500][i % 7]!;
  return {
    url_fp: i.toString(16).padStart(16, '0'),
    url: `https://${host}/p/${i}`,
    host,
    // Over two days: the table has two partitions.
    fetched_at: new Date(T0 + i * 40_000),
    status,
    error_code: status === 0 ? 'connect_timeout' : i % 17 === 0 ? 'robots_denied' : '',
    bytes: 100 + i,
    fetch_ms: 20,
    content_type: 'text/html',
    content_hash: '',
    depth: 0,
    agent_id: 'agent-1',
    warc_key: '',
    warc_offset: 0,
    warc_length: 0,
    redirect_to: '',
  };
}

const rows = Array.from({ length: 3_000 }, (_, i) => row(i));
const robotsOnly = [0, 1, 2].map((k) => ({
  ...row(90_000 + k),
  host: ROBOTS_ONLY,
  url: `https://${ROBOTS_ONLY}/p/${k}`,
  status: 0,
  error_code: 'robots_denied',
}));

let dir = '';
let analytics: AnalyticsStore;
let db: Db;
let dbUrl = '';
let policies: HostPolicyRepository;

/** What `GET /v1/hosts` must list: every host, from the rows and the policies, in byte order. */
function reference(): HostListItem[] {
  const unique = new Map([...rows, ...robotsOnly].map((r) => [`${r.url_fp}@${+r.fetched_at}`, r]));
  const byHost = new Map<string, FetchRow[]>();
  for (const r of unique.values()) byHost.set(r.host, [...(byHost.get(r.host) ?? []), r]);
  const names = [...new Set([...byHost.keys(), ...POLICY_ONLY, 'h3.list.example'])];
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.map((host) => {
    const all = byHost.get(host) ?? [];
    const attempts = all.filter((r) => r.error_code !== 'robots_denied');
    const last = Math.max(0, ...all.map((r) => +r.fetched_at));
    return {
      host,
      fetches: attempts.length,
      last_fetch_at: attempts.length > 0 ? new Date(last).toISOString() : null,
      errors: attempts.filter((r) => r.status === 0 || r.status >= 500).length,
      blocked: POLICY_ONLY.includes(host),
      rate_limit_rps: host === 'h3.list.example' ? 4 : null,
    };
  });
}

/** Every page of a search, `limit` at a time. */
async function walk(q: string, limit: number): Promise<HostListItem[]> {
  const items: HostListItem[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await searchHosts({ analytics, policies }, { q, limit, cursor });
    items.push(...page.items);
    if (page.next_cursor === null) return items;
    expect(page.items).toHaveLength(limit);
    cursor = page.next_cursor;
  }
  throw new Error('too many pages');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'search-hosts-'));
  analytics = await openAnalytics({ path: dir, database: 'crawler_test' });
  await analytics.migrate();
  for (let o = 0; o < rows.length; o += 500) await analytics.insertFetches(rows.slice(o, o + 500));
  // Replays: a batch again, and rows of other batches mixed with the robots.txt refusals.
  await analytics.insertFetches(rows.slice(500, 1_000));
  await analytics.insertFetches([...rows.filter((_, i) => i % 9 === 0), ...robotsOnly]);
  const base = new URL(
    process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  );
  base.pathname = `/crawler_test_hosts_${process.pid}_${randomBytes(3).toString('hex')}`;
  dbUrl = base.toString();
  await migrate(dbUrl);
  db = createDb(dbUrl);
  policies = new HostPolicyRepository(db);
  for (const host of POLICY_ONLY) await policies.upsert(host, { blocked: true });
  await policies.upsert('h3.list.example', { rateLimitRps: 4 });
}, 60_000);

afterAll(async () => {
  await analytics?.close();
  await db?.$disconnect();
  if (dbUrl) await dropDatabase(dbUrl);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('searchHosts', () => {
  it('lists every host as the reference does, one page or many', async () => {
    const want = reference();
    expect(want.some((h) => h.host === ROBOTS_ONLY && h.fetches === 0)).toBe(true);
    expect(await walk('', 500)).toEqual(want);
    expect(await walk('', 7)).toEqual(want);
    expect(await walk('', 1)).toEqual(want);
  });

  it('filters by substring, any case, on every page', async () => {
    for (const [q, limit] of [
      ['LIST', 6],
      ['h1', 4],
      ['-', 2],
      ['other', 1],
      ['.test', 50],
      ['nowhere', 5],
    ] as const) {
      const want = reference().filter((h) => h.host.includes(q.toLowerCase()));
      expect(await walk(q, limit), q).toEqual(want);
    }
  });
});
