import { blockRulesKey } from '@crawler/domain/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connectRedis, type RedisClient } from '@crawler/adapters/redis';
import { blockRuleSetSchema, type BlockRuleSet } from '@crawler/domain/traps';
import { startAuthKit, type AuthKit } from './auth-kit';
import { httpCall, type ApiError } from './http-call';

// Operators' URL block patterns through the API: added, listed and removed on a host or a
// `*.example.com` pattern, validated with reasons, each change audited in its transaction, and
// the whole rule set published to Redis (versioned) for agents after every change.
let kit: AuthKit;
let redis: RedisClient;

interface Patterns {
  host: string;
  kind: 'host' | 'suffix';
  patterns: Array<{ pattern: string; created_at: string }>;
  inherited: Array<{ from: string; pattern: string }>;
  changed?: boolean;
}
interface AuditPage {
  items: Array<{
    action: string;
    target: string;
    before: unknown;
    after: unknown;
    actor: { label: string };
  }>;
}

const patternsPath = (host: string) => `/v1/hosts/${encodeURIComponent(host)}/block-patterns`;
const add = (host: string, pattern: string, as: 'operator' | 'viewer' | 'admin' = 'operator') =>
  kit.call<Patterns & ApiError>('POST', patternsPath(host), { as, body: { pattern } });
const remove = (host: string, pattern: string, as: 'operator' | 'viewer' = 'operator') =>
  kit.call<Patterns & ApiError>(
    'DELETE',
    `${patternsPath(host)}?${new URLSearchParams({ pattern }).toString()}`,
    { as },
  );

/** What agents read: the hash's version and its validated rule set. */
async function published(): Promise<{ version: number; set: BlockRuleSet }> {
  const [version, rules] = await redis.hmget(
    blockRulesKey(kit.env.config.REDIS_PREFIX),
    'version',
    'rules',
  );
  return { version: Number(version), set: blockRuleSetSchema.parse(JSON.parse(rules ?? 'null')) };
}
const patternsOf = (set: BlockRuleSet, host: string) =>
  set.rules.find((r) => r.host === host)?.patterns ?? null;

async function audit(action: string, target: string): Promise<AuditPage['items']> {
  const q = new URLSearchParams({ action, target });
  const res = await kit.call<AuditPage>('GET', `/v1/audit?${q.toString()}`, { as: 'operator' });
  expect(res.status).toBe(200);
  return res.body.items;
}

beforeAll(async () => {
  kit = await startAuthKit('block-patterns');
  redis = await connectRedis(kit.env.config.REDIS_URL);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await kit?.stop();
});

describe('block patterns through REST', () => {
  it('the coordinator publishes an (empty) rule set at start', async () => {
    const p = await published();
    expect(p.version).toBeGreaterThanOrEqual(1);
    expect(p.set.rules).toEqual([]);
  });

  it('an operator adds a pattern: stored in canonical form, audited, published', async () => {
    const before = await published();
    const res = await add('shop.example', '/caf%c3%a9/');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      host: 'shop.example',
      kind: 'host',
      patterns: [{ pattern: '/caf%C3%A9/' }],
      inherited: [],
      changed: true,
    });
    const after = await published();
    expect(after.version).toBe(before.version + 1);
    expect(patternsOf(after.set, 'shop.example')).toEqual(['/caf%C3%A9/']);
    const [entry] = await audit('hosts.addBlockPattern', 'shop.example');
    expect(entry).toMatchObject({
      action: 'hosts.addBlockPattern',
      target: 'shop.example',
      before: { block_patterns: [] },
      after: { block_patterns: ['/caf%C3%A9/'] },
      actor: { label: 'token operator-token (operator@test.local)' },
    });
    // A policy row exists now (all fields unset): the host is known to the API.
    const host = await kit.call<{ policy: { blocked: boolean } }>('GET', '/v1/hosts/shop.example');
    expect(host.status).toBe(200);
    expect(host.body.policy.blocked).toBe(false);
  });

  it('adding the same pattern again (any spelling) changes nothing and is not audited', async () => {
    const before = await published();
    const res = await add('SHOP.example', ' /café/ ');
    expect(res.status).toBe(200);
    expect(res.body.changed).toBe(false);
    expect(res.body.patterns.map((p) => p.pattern)).toEqual(['/caf%C3%A9/']);
    expect((await published()).version).toBe(before.version);
    expect(await audit('hosts.addBlockPattern', 'shop.example')).toHaveLength(1);
  });

  it('a *.suffix pattern applies to the domain and its hosts, listed as inherited', async () => {
    expect((await add('*.example', '*.pdf')).status).toBe(200);
    expect((await add('*.example', '/*/print/*')).status).toBe(200);
    const list = await kit.call<Patterns>('GET', patternsPath('shop.example'), { as: 'viewer' });
    expect(list.status).toBe(200);
    expect(list.body.patterns.map((p) => p.pattern)).toEqual(['/caf%C3%A9/']);
    expect(list.body.inherited).toEqual([
      { from: '*.example', pattern: '*.pdf' },
      { from: '*.example', pattern: '/*/print/*' },
    ]);
    const own = await kit.call<Patterns>('GET', patternsPath('*.example'), { as: 'viewer' });
    expect(own.body).toMatchObject({ host: '*.example', kind: 'suffix', inherited: [] });
    expect(patternsOf((await published()).set, '*.example')).toEqual(['*.pdf', '/*/print/*']);
  });

  it('GET /v1/block-rules lists every rule with the version agents see', async () => {
    const res = await kit.call<{
      version: number;
      rules: Array<{ host: string; blocked: boolean | null; patterns: string[] }>;
      pattern_count: number;
      max_patterns: number;
    }>('GET', '/v1/block-rules', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe((await published()).version);
    expect(res.body.rules).toEqual([
      { host: '*.example', blocked: null, patterns: ['*.pdf', '/*/print/*'] },
      { host: 'shop.example', blocked: null, patterns: ['/caf%C3%A9/'] },
    ]);
    expect(res.body).toMatchObject({ pattern_count: 3, max_patterns: 10_000 });
  });

  it('a host block (PUT blocked) is published too, and cleared again', async () => {
    const before = await published();
    expect(
      (await kit.call('PUT', '/v1/hosts/*.blocked.example', { body: { blocked: true } })).status,
    ).toBe(200);
    const after = await published();
    expect(after.version).toBe(before.version + 1);
    expect(after.set.rules).toContainEqual({
      host: '*.blocked.example',
      blocked: true,
      patterns: [],
    });
    // A rate change does not touch the rule set.
    await kit.call('PUT', '/v1/hosts/*.blocked.example', { body: { rate_limit_rps: 3 } });
    expect((await published()).version).toBe(after.version);
    await kit.call('PUT', '/v1/hosts/*.blocked.example', { body: { blocked: null } });
    expect(patternsOf((await published()).set, '*.blocked.example')).toBeNull();
  });

  it('removes a pattern (any spelling), audited and published; a missing one is 404', async () => {
    const res = await remove('shop.example', '/café/');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ patterns: [], changed: true });
    expect(patternsOf((await published()).set, 'shop.example')).toBeNull();
    const [entry] = await audit('hosts.removeBlockPattern', 'shop.example');
    expect(entry).toMatchObject({
      before: { block_patterns: ['/caf%C3%A9/'] },
      after: { block_patterns: [] },
    });

    const again = await remove('shop.example', '/café/');
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('NOT_FOUND');
    const typo = await remove('*.example', '*.pfd');
    expect(typo.status).toBe(404);
    expect(typo.body.error.message).toBe(
      '*.example has no block pattern *.pfd; its patterns: *.pdf /*/print/*',
    );
  });

  it('a host audit trail shows pattern changes beside policy changes', async () => {
    const res = await kit.call<{ audit: Array<{ action: string }> }>(
      'GET',
      '/v1/hosts/shop.example',
    );
    expect(res.body.audit.map((a) => a.action)).toEqual([
      'hosts.removeBlockPattern',
      'hosts.addBlockPattern',
    ]);
  });
});

describe('validation: each refusal names the field and the reason', () => {
  it.each([
    ['private/', 'must start with "/"'],
    ['https://shop.example/private/', 'not a URL'],
    ['/a b', 'space'],
    ['/100%', 'hex escape'],
    ['/a/../b', '".." segment'],
    ['/*', 'matches every URL of the host'],
    ['/*/*/*/*/*/*/*/*/*/', 'at most 8'],
    [`/${'x'.repeat(300)}`, 'is 301 characters long; at most 256'],
    ['', 'empty'],
  ])('%j → 400 (%s)', async (pattern, reason) => {
    const before = await published();
    const res = await add('valid.example', pattern);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.fields?.map((f) => f.path)).toEqual(['pattern']);
    expect(res.body.error.fields?.[0]?.message).toContain(reason);
    expect((await published()).version).toBe(before.version);
  });

  it('refuses a non-string pattern, an unknown field and a bad host', async () => {
    const num = await kit.call<ApiError>('POST', patternsPath('valid.example'), {
      body: { pattern: 5 },
    });
    expect(num.status).toBe(400);
    const extra = await kit.call<ApiError>('POST', patternsPath('valid.example'), {
      body: { pattern: '/x/', blocked: true },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toContain('blocked');
    const host = await kit.call<ApiError>('POST', patternsPath('exa mple.com'), {
      body: { pattern: '/x/' },
    });
    expect(host.status).toBe(400);
    expect(host.body.error.message).toContain('not a valid host name');
    const noQuery = await kit.call<ApiError>('DELETE', patternsPath('valid.example'));
    expect(noQuery.status).toBe(400);
    expect(noQuery.body.error.fields?.[0]?.path).toBe('pattern');
  });

  it('refuses more than 100 patterns on one policy, saying what to do', async () => {
    // 99 written directly (faster than 99 calls), the 100th through the API.
    expect((await add('many.example', '/p0/')).status).toBe(200);
    await kit.db.query(
      `INSERT INTO host_block_patterns (host, pattern)
       SELECT 'many.example', '/p' || i || '/' FROM generate_series(1, 98) AS i`,
    );
    expect((await add('many.example', '/p99/')).status).toBe(200);
    const res = await add('many.example', '/p100/');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'pattern: many.example has 100 block patterns, the most one policy may have; remove one first',
    );
    expect(patternsOf((await published()).set, 'many.example')).toHaveLength(100);
  });

  it('nothing refused left a row or an audit entry behind', async () => {
    const rows = await kit.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM host_block_patterns WHERE host = 'valid.example'`,
    );
    expect(rows.rows[0]!.n).toBe(0);
    expect(await audit('hosts.addBlockPattern', 'valid.example')).toEqual([]);
  });
});

describe('roles and the other ways in', () => {
  it('viewers list but cannot add or remove; anonymous callers get 401', async () => {
    expect((await kit.call('GET', patternsPath('*.example'), { as: 'viewer' })).status).toBe(200);
    const added = await add('*.example', '/viewer/', 'viewer');
    expect(added.status).toBe(403);
    expect(added.body.error.message).toBe(
      'POST /v1/hosts/:host/block-patterns needs the operator role; this caller has viewer',
    );
    expect((await remove('*.example', '*.pdf', 'viewer')).status).toBe(403);
    expect(patternsOf((await published()).set, '*.example')).toEqual(['*.pdf', '/*/print/*']);
    const anon = await httpCall(kit.url, 'GET', '/v1/block-rules');
    expect(anon.status).toBe(401);
  });

  it('tRPC: hosts.addBlockPattern, blockPatterns, removeBlockPattern and blockRules', async () => {
    const headers = { authorization: `Bearer ${kit.accounts.operator.token}` };
    const added = await httpCall<{ result: { data: Patterns } }>(
      kit.url,
      'POST',
      '/trpc/hosts.addBlockPattern',
      { body: { host: 'trpc.example', pattern: '/t/' }, headers },
    );
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.result.data).toMatchObject({ patterns: [{ pattern: '/t/' }], changed: true });
    const listed = await httpCall<{ result: { data: Patterns } }>(
      kit.url,
      'GET',
      `/trpc/hosts.blockPatterns?input=${encodeURIComponent(JSON.stringify({ host: 'trpc.example' }))}`,
      { headers },
    );
    expect(listed.body.result.data.patterns.map((p) => p.pattern)).toEqual(['/t/']);
    const bad = await httpCall<{ error: { data: { code: string } } }>(
      kit.url,
      'POST',
      '/trpc/hosts.addBlockPattern',
      { body: { host: 'trpc.example', pattern: 't' }, headers },
    );
    expect(bad.status).toBe(400);
    const removed = await httpCall(kit.url, 'POST', '/trpc/hosts.removeBlockPattern', {
      body: { host: 'trpc.example', pattern: '/t/' },
      headers,
    });
    expect(removed.status).toBe(200);
    const rules = await httpCall<{ result: { data: { version: number } } }>(
      kit.url,
      'GET',
      '/trpc/hosts.blockRules',
      { headers },
    );
    expect(rules.body.result.data.version).toBe((await published()).version);
    expect((await audit('hosts.addBlockPattern', 'trpc.example'))[0]?.actor.label).toBe(
      'token operator-token (operator@test.local)',
    );
  });

  it('OpenAPI documents the routes with their roles and the pattern parameter', async () => {
    const doc = (await (await fetch(`${kit.url}/v1/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { 'x-required-role': string; parameters: { name: string }[] }>
      >;
    };
    const p = doc.paths['/v1/hosts/{host}/block-patterns']!;
    expect(p.get!['x-required-role']).toBe('viewer');
    expect(p.post!['x-required-role']).toBe('operator');
    expect(p.delete!['x-required-role']).toBe('operator');
    expect(p.delete!.parameters.map((x) => x.name)).toEqual(['host', 'pattern']);
    expect(doc.paths['/v1/block-rules']!.get!['x-required-role']).toBe('viewer');
  });

  it('the CLI adds, lists and removes patterns', async () => {
    const bin = fileURLToPath(new URL('../bin/crawler.mjs', import.meta.url));
    const crawler = (...args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) => {
        execFile(
          process.execPath,
          [bin, ...args],
          {
            env: {
              ...process.env,
              DATA_DIR: kit.env.dataDir,
              COORDINATOR_URL: kit.url,
              CRAWLER_API_TOKEN: kit.accounts.operator.token,
            },
            timeout: 120_000,
          },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout, err: stderr }),
        );
      });
    const added = await crawler('hosts', 'block-pattern', 'add', '*.cli.test', '/*/print/*');
    expect(added.code, added.err).toBe(0);
    expect(JSON.parse(added.out)).toMatchObject({
      host: '*.cli.test',
      patterns: [{ pattern: '/*/print/*' }],
    });
    const listed = await crawler('hosts', 'block-pattern', 'list', 'www.cli.test');
    expect(JSON.parse(listed.out)).toMatchObject({
      inherited: [{ from: '*.cli.test', pattern: '/*/print/*' }],
    });
    const all = await crawler('hosts', 'block-pattern', 'list');
    expect((JSON.parse(all.out) as { rules: unknown[] }).rules).toContainEqual({
      host: '*.cli.test',
      blocked: null,
      patterns: ['/*/print/*'],
    });
    const bad = await crawler('hosts', 'block-pattern', 'add', '*.cli.test', 'print');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('must start with "/"');
    const removed = await crawler('hosts', 'block-pattern', 'remove', '*.cli.test', '/*/print/*');
    expect(removed.code, removed.err).toBe(0);
    expect(JSON.parse(removed.out)).toMatchObject({ patterns: [], changed: true });
    const usage = await crawler('hosts', 'block-pattern', 'add', '*.cli.test');
    expect(usage.code).toBe(2);
  }, 180_000);
});
