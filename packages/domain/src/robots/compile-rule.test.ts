import { describe, expect, it } from 'vitest';
import { compareRules, compileRule, matchRule, type CompiledRule } from './compile-rule';

function rule(value: string, allow = false): CompiledRule {
  const r = compileRule(value, allow);
  if (r === null) throw new Error('empty rule');
  return r;
}

describe('compileRule', () => {
  it('ignores empty values', () => {
    expect(compileRule('', false)).toBeNull();
    expect(compileRule('   ', true)).toBeNull();
  });

  it('splits on * and recognises a final $', () => {
    expect(rule('/a*b*c$')).toMatchObject({
      pieces: ['/a', 'b', 'c'],
      anchored: true,
      specificity: 7,
    });
    expect(rule('/a**b')).toMatchObject({ pieces: ['/a', 'b'], anchored: false });
    expect(rule('/a$b')).toMatchObject({ pieces: ['/a%24b'], anchored: false });
  });

  it('prepends / to a pattern that lacks it', () => {
    expect(rule('private/').pieces).toEqual(['/private/']);
    expect(rule('*.gif$').pieces).toEqual(['', '.gif']);
  });

  it('keeps Disallow pieces loose and Allow pieces strict', () => {
    expect(rule('/%62%61%7A').pieces).toEqual(['/baz']);
    expect(rule('/%62%61%7A', true).pieces).toEqual(['/%62%61%7A']);
  });
});

describe('matchRule', () => {
  it('matches prefixes', () => {
    expect(matchRule(rule('/fish'), '/fish.html')).toBe(true);
    expect(matchRule(rule('/fish'), '/Fish')).toBe(false);
    expect(matchRule(rule('/fish/'), '/fish')).toBe(false);
  });

  it('matches wildcards and anchors', () => {
    expect(matchRule(rule('/*.php'), '/folder/a.php?x')).toBe(true);
    expect(matchRule(rule('/*.php$'), '/folder/a.php?x')).toBe(false);
    expect(matchRule(rule('/*.php$'), '/folder/a.php')).toBe(true);
    expect(matchRule(rule('/fish*.php'), '/fishheads/catfish.php?p')).toBe(true);
    expect(matchRule(rule('/$'), '/')).toBe(true);
    expect(matchRule(rule('/$'), '/a')).toBe(false);
    expect(matchRule(rule('/a*b*a$'), '/aba')).toBe(true);
    expect(matchRule(rule('/a*ab$'), '/ab')).toBe(false);
    expect(matchRule(rule('/a*'), '/a')).toBe(true);
  });

  it('stays linear on pathological patterns', () => {
    const r = rule(`/${'a*'.repeat(50)}b`);
    const start = performance.now();
    expect(matchRule(r, `/${'a'.repeat(20_000)}`)).toBe(false);
    expect(performance.now() - start).toBeLessThan(200);
  });
});

describe('compareRules', () => {
  it('puts longer rules first and Allow before Disallow on a tie', () => {
    const rules = [rule('/a'), rule('/abc'), rule('/ab', true), rule('/ab')];
    expect(rules.sort(compareRules).map((r) => `${r.allow ? 'A' : 'D'}${r.pattern}`)).toEqual([
      'D/abc',
      'A/ab',
      'D/ab',
      'D/a',
    ]);
  });
});
