import { describe, expect, it } from 'vitest';
import { compileRule, type CompiledRule } from './compile-rule';
import { createRuleMatcher } from './match-rules';

function rules(...lines: string[]): CompiledRule[] {
  return lines.flatMap((line) => {
    const [kind, value] = line.split(' ');
    const r = compileRule(value ?? '', kind === 'allow');
    return r === null ? [] : [r];
  });
}

describe('createRuleMatcher', () => {
  it('returns the longest matching rule, Allow on ties', () => {
    const match = createRuleMatcher(
      rules('disallow /', 'allow /p', 'disallow /page', 'allow /page'),
    );
    expect(match('/page.html')).toMatchObject({ allow: true, pattern: '/page' });
    expect(match('/pa')).toMatchObject({ allow: true, pattern: '/p' });
    expect(match('/x')).toMatchObject({ allow: false, pattern: '/' });
  });

  it('returns null when nothing matches', () => {
    expect(createRuleMatcher(rules('disallow /a'))('/b')).toBeNull();
    expect(createRuleMatcher([])('/b')).toBeNull();
  });

  it('checks wildcard rules whatever the prefix', () => {
    const match = createRuleMatcher(rules('allow /page', 'disallow /*.html', 'disallow *.gif$'));
    expect(match('/page.html')).toMatchObject({ allow: false, pattern: '/*.html' });
    expect(match('/x/y.gif')).toMatchObject({ allow: false, pattern: '*.gif$' });
    expect(match('/page')).toMatchObject({ allow: true });
  });

  it('matches Disallow loosely and Allow strictly', () => {
    const match = createRuleMatcher(rules('disallow /', 'allow /a%2A', 'disallow /b%2A'));
    expect(match('/a*')).toMatchObject({ allow: false, pattern: '/' });
    expect(match('/a%2a')).toMatchObject({ allow: true });
    expect(match('/b*')).toMatchObject({ allow: false, pattern: '/b%2A' });
  });

  it('stays fast with many rules', () => {
    const many: string[] = [];
    for (let i = 0; i < 2000; i++)
      many.push(`disallow /s${i}/*/x$`, `allow /s${i}/pub/`, `disallow /d${i}/`);
    const match = createRuleMatcher(rules(...many));
    const start = performance.now();
    for (let i = 0; i < 20_000; i++) match(`/s${i % 3000}/a/b/page-${i}.html`);
    // ~1 µs a call measured; the bound only catches a return to linear scans.
    expect(performance.now() - start).toBeLessThan(1000);
    expect(match('/s5/a/x')).toMatchObject({ allow: false });
    expect(match('/s5/pub/x')).toMatchObject({ allow: true });
    expect(match('/d1999/q')).toMatchObject({ allow: false, pattern: '/d1999/' });
  });
});
