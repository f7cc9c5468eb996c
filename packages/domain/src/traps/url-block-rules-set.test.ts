import { blockRulesKey } from '../messages/keys';
import { describe, expect, it } from 'vitest';
import {
  blockRuleSetSchema,
  CompiledBlockRules,
  NO_BLOCK_RULES,
  type BlockRule,
} from './url-block-rules-set';

const rule = (host: string, blocked: boolean | null, patterns: string[] = []): BlockRule => ({
  host,
  blocked,
  patterns,
});
const ruleOf = (set: CompiledBlockRules, url: string) =>
  set.match(url, new URL(url).hostname)?.rule ?? null;

describe('CompiledBlockRules', () => {
  it('answers null when there is no rule', () => {
    expect(NO_BLOCK_RULES.empty).toBe(true);
    expect(NO_BLOCK_RULES.match('http://a.test/x', 'a.test')).toBeNull();
  });

  it('applies the patterns of the exact host only to that host', () => {
    const set = new CompiledBlockRules([rule('a.test', null, ['/private/', '*.pdf'])]);
    expect(ruleOf(set, 'http://a.test/private/x')).toBe('a.test /private/');
    expect(ruleOf(set, 'http://a.test:8080/docs/x.pdf?dl=1')).toBe('a.test *.pdf');
    expect(ruleOf(set, 'http://a.test/public/x')).toBeNull();
    expect(ruleOf(set, 'http://b.a.test/private/x')).toBeNull();
    expect(ruleOf(set, 'http://xa.test/private/x')).toBeNull();
  });

  it('matches the path only, never the query', () => {
    const set = new CompiledBlockRules([rule('a.test', null, ['/search', '*.pdf'])]);
    expect(ruleOf(set, 'http://a.test/search?q=1')).toBe('a.test /search');
    expect(ruleOf(set, 'http://a.test/view?file=x.pdf')).toBeNull();
  });

  it('applies a *.suffix rule to the domain and every host under it, and adds up patterns', () => {
    const set = new CompiledBlockRules([
      rule('*.example.com', null, ['/print/']),
      rule('*.shop.example.com', null, ['/cart/']),
      rule('shop.example.com', null, ['/admin/']),
    ]);
    expect(ruleOf(set, 'http://example.com/print/1')).toBe('*.example.com /print/');
    expect(ruleOf(set, 'http://a.b.example.com/print/1')).toBe('*.example.com /print/');
    expect(ruleOf(set, 'http://shop.example.com/print/1')).toBe('*.example.com /print/');
    expect(ruleOf(set, 'http://shop.example.com/cart/1')).toBe('*.shop.example.com /cart/');
    expect(ruleOf(set, 'http://shop.example.com/admin/')).toBe('shop.example.com /admin/');
    expect(ruleOf(set, 'http://x.shop.example.com/admin/')).toBeNull();
    expect(ruleOf(set, 'http://example.org/print/1')).toBeNull();
    expect(ruleOf(set, 'http://notexample.com/print/1')).toBeNull();
  });

  it('blocks whole hosts as the effective policy does: own row, then the longest suffix', () => {
    const set = new CompiledBlockRules([
      rule('*.example.com', true),
      rule('open.example.com', false, ['/private/']),
      rule('*.lab.example.com', false),
      rule('bad.test', true),
    ]);
    expect(ruleOf(set, 'http://example.com/')).toBe('blocked *.example.com');
    expect(ruleOf(set, 'http://www.example.com/a')).toBe('blocked *.example.com');
    expect(ruleOf(set, 'http://bad.test/a')).toBe('blocked bad.test');
    expect(ruleOf(set, 'http://sub.bad.test/a')).toBeNull();
    // A host's own `blocked: false` wins over its domain's block; its patterns still apply.
    expect(ruleOf(set, 'http://open.example.com/a')).toBeNull();
    expect(ruleOf(set, 'http://open.example.com/private/a')).toBe('open.example.com /private/');
    // A longer suffix's `false` wins over a shorter one's `true`.
    expect(ruleOf(set, 'http://x.lab.example.com/a')).toBeNull();
  });

  it('a blocked host wins over a pattern, whichever row comes first', () => {
    const set = new CompiledBlockRules([rule('a.test', null, ['/x/']), rule('*.a.test', true)]);
    expect(ruleOf(set, 'http://a.test/x/1')).toBe('blocked *.a.test');
  });

  it('handles IP literals as exact hosts', () => {
    const set = new CompiledBlockRules([rule('127.0.0.1', null, ['/p/']), rule('[::1]', true)]);
    expect(set.match('http://127.0.0.1:8080/p/1', '127.0.0.1')?.rule).toBe('127.0.0.1 /p/');
    expect(set.match('http://[::1]/p/1', '[::1]')?.rule).toBe('blocked [::1]');
  });

  it('costs a lookup per host label, not a scan of the rules: 20,000 URLs against 30,000 patterns', () => {
    // A scan of every rule would be 600 million pattern tests (minutes); the maps make it a few
    // per URL (about 0.5 µs each once warm). The bound is loose so a loaded machine passes.
    const rules = Array.from({ length: 10_000 }, (_, i) =>
      rule(i % 2 ? `h${i}.test` : `*.d${i}.test`, i % 7 === 0 ? true : null, [
        '/private/',
        '*.pdf',
        '/*/print/*',
      ]),
    );
    const set = new CompiledBlockRules(rules);
    expect(set.patternCount).toBe(30_000);
    const urls = Array.from({ length: 1000 }, (_, i) => {
      const host = i % 3 ? `www.d${i - (i % 2)}.test` : `h${i | 1}.test`;
      return [`http://${host}/news/2024/article-${i}.html?x=1`, host] as const;
    });
    let hits = 0;
    const t0 = performance.now();
    for (let k = 0; k < 20; k++) for (const [u, h] of urls) if (set.match(u, h)) hits++;
    const ms = performance.now() - t0;
    const blockedHosts = urls.filter(([, h]) => Number(/\d+/.exec(h)![0]) % 7 === 0).length;
    expect(hits).toBe(20 * blockedHosts);
    expect(ms).toBeLessThan(5000);
  });
});

describe('blockRuleSetSchema', () => {
  it('validates what agents read, patterns canonicalized', () => {
    const set = blockRuleSetSchema.parse({
      published_at: '2026-01-01T00:00:00.000Z',
      rules: [{ host: '*.example.com', blocked: null, patterns: ['/caf%c3%a9/'] }],
    });
    expect(set.rules[0]!.patterns).toEqual(['/caf%C3%A9/']);
  });
  it('refuses a bad pattern, a bad host or an unknown field', () => {
    const base = { published_at: 'x', rules: [] };
    expect(
      blockRuleSetSchema.safeParse({
        ...base,
        rules: [{ host: 'a.test', blocked: null, patterns: ['nope'] }],
      }).success,
    ).toBe(false);
    expect(
      blockRuleSetSchema.safeParse({
        ...base,
        rules: [{ host: 'A B', blocked: null, patterns: [] }],
      }).success,
    ).toBe(false);
    expect(blockRuleSetSchema.safeParse({ ...base, extra: 1 }).success).toBe(false);
  });
  it('has one key under the crawl prefix', () => {
    expect(blockRulesKey('crawl')).toBe('crawl:block-rules');
  });
});
