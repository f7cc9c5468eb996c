import { blockRulesKey } from '@crawler/domain/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontier, type EnqueueUrl } from '@crawler/frontier';
import { createLogger } from '@crawler/adapters/log';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '@crawler/adapters/redis';
import { uniquePrefix } from '@crawler/testing';
import { type BlockRule } from '@crawler/domain/traps';
import { urlFingerprint } from '@crawler/domain/url';
import { LiveBlockRules } from '../policy/live-block-rules';
import { EnqueueBatcher } from './enqueue-batcher';

// Links meet the operators' block rules at enqueue: the batcher drops what a blocked host or a
// URL pattern matches before the frontier sees it (the seen set stays without them), counts
// them, and follows the rules the coordinator publishes — read live from Redis.
const prefix = uniquePrefix('block-enqueue');
let redis: RedisClient;
let frontier: Frontier;
let rules: LiveBlockRules;
let batcher: EnqueueBatcher;
let accepted = 0;
let blocked = 0;
/** The rule of every URL dropped, by URL. */
const dropRules = new Map<string, string>();
let version = 0;

const log = createLogger('block-enqueue', 'silent');
const link = (url: string): EnqueueUrl => ({
  url,
  urlFp: urlFingerprint(url),
  host: new URL(url).hostname,
  depth: 1,
  source: 'link',
});
/** Publishes a rule set the way the coordinator does (a new version with its rules). */
async function publish(set: BlockRule[] | string): Promise<void> {
  version += 1;
  await redis.hset(
    blockRulesKey(prefix),
    'version',
    String(version),
    'rules',
    typeof set === 'string'
      ? set
      : JSON.stringify({ published_at: new Date().toISOString(), rules: set }),
  );
}
async function seen(urls: string[]): Promise<boolean[]> {
  return frontier.seenBatch(urls.map((u) => ({ urlFp: urlFingerprint(u), host: hostOf(u) })));
}
const hostOf = (u: string) => new URL(u).hostname;

beforeAll(async () => {
  redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  frontier = new Frontier(redis, { prefix, shards: 4, seen: { mode: 'set' } });
  rules = new LiveBlockRules({ redis, prefix, log });
  batcher = new EnqueueBatcher(frontier, (n) => (accepted += n), log, {
    blockRules: rules,
    onBlocked: (u, match) => {
      blocked += 1;
      dropRules.set(u.url, match.rule);
    },
    delayMs: 5,
  });
});

afterAll(async () => {
  rules?.stop();
  await deleteKeysWithPrefix(redis, prefix);
  redis?.disconnect();
});

describe('EnqueueBatcher with live block rules', () => {
  it('enqueues everything while nothing is published', async () => {
    await rules.refresh();
    expect(rules.version).toBeNull();
    await batcher.add([link('http://free.test/a'), link('http://free.test/private/a')]);
    expect(await seen(['http://free.test/a', 'http://free.test/private/a'])).toEqual([true, true]);
    expect(blocked).toBe(0);
  });

  it('drops links to blocked hosts and domains and links matching a pattern', async () => {
    await publish([
      { host: 'bad.test', blocked: true, patterns: [] },
      { host: '*.evil.test', blocked: true, patterns: [] },
      { host: 'ok.evil.test', blocked: false, patterns: [] },
      { host: 'shop.test', blocked: null, patterns: ['/private/', '*.pdf'] },
      { host: '*.news.test', blocked: null, patterns: ['/*/print/*'] },
    ]);
    await rules.refresh();
    expect(rules.version).toBe(version);
    const kept = [
      'http://shop.test/public/a',
      'http://shop.test/view?f=a.pdf',
      'http://ok.evil.test/a',
      'http://www.news.test/2024/story',
      'http://sub.bad.test/a',
    ];
    const dropped = [
      'http://bad.test/a',
      'http://evil.test/a',
      'http://www.evil.test/a',
      'http://shop.test/private/a',
      'http://shop.test/docs/a.pdf',
      'http://news.test/2024/print/1',
      'http://www.news.test/a/print/',
    ];
    const before = { accepted, blocked };
    await batcher.add([...dropped, ...kept].map(link));
    expect(blocked - before.blocked).toBe(dropped.length);
    expect(accepted - before.accepted).toBe(kept.length);
    // Each drop is reported with its URL (so its host) and the rule that matched it.
    expect(dropped.map((u) => dropRules.get(u))).toEqual([
      'blocked bad.test',
      'blocked *.evil.test',
      'blocked *.evil.test',
      'shop.test /private/',
      'shop.test *.pdf',
      '*.news.test /*/print/*',
      '*.news.test /*/print/*',
    ]);
    expect(await seen(kept)).toEqual(kept.map(() => true));
    expect(await seen(dropped)).toEqual(dropped.map(() => false));
    // A call whose links are all dropped resolves at once, without a frontier call.
    await batcher.add([link('http://bad.test/b')]);
    expect(blocked - before.blocked).toBe(dropped.length + 1);
  });

  it('follows a new version: a removed rule lets links through again', async () => {
    await publish([{ host: 'shop.test', blocked: null, patterns: ['*.pdf'] }]);
    await rules.refresh();
    const before = blocked;
    await batcher.add(
      ['http://bad.test/again', 'http://shop.test/private/b', 'http://shop.test/b.pdf'].map(link),
    );
    expect(blocked - before).toBe(1);
    expect(
      await seen(['http://bad.test/again', 'http://shop.test/private/b', 'http://shop.test/b.pdf']),
    ).toEqual([true, true, false]);
  });

  it('keeps the last good rules when a malformed set is published', async () => {
    const good = rules.version;
    await publish(
      '{"published_at":"x","rules":[{"host":"shop.test","blocked":null,"patterns":["nope"]}]}',
    );
    await rules.refresh();
    expect(rules.version).toBe(good);
    expect(rules.match('http://shop.test/c.pdf', 'shop.test')).toMatchObject({
      kind: 'pattern',
      scope: 'shop.test',
      pattern: '*.pdf',
    });
    await publish('not json');
    await rules.refresh();
    expect(rules.version).toBe(good);
  });

  it('picks a change up by itself within its polling interval', async () => {
    rules.stop();
    await rules.start(100);
    await publish([{ host: 'late.test', blocked: true, patterns: [] }]);
    const t0 = Date.now();
    while (rules.match('http://late.test/', 'late.test') === null && Date.now() - t0 < 2000)
      await new Promise((r) => setTimeout(r, 20));
    expect(rules.match('http://late.test/', 'late.test')).toMatchObject({
      kind: 'host',
      scope: 'late.test',
    });
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
