import { describe, expect, it } from 'vitest';
import { keyProblem, StorageError, validatePrefix } from './index';

describe('keyProblem', () => {
  it('accepts relative slash-separated keys up to 1024 bytes', () => {
    for (const key of [
      'a',
      'crawl/2026-11-30/agent-1/00000.warc.gz',
      'a..b/..c/d..',
      '.hidden/.x',
      'sp ace/plus+/ünï/日本',
      'x'.repeat(255),
      ['x'.repeat(255), 'y'.repeat(255), 'z'.repeat(255), 'w'.repeat(254), 'v'].join('/'), // 1024 bytes
    ]) {
      expect(keyProblem(key), key).toBeNull();
    }
  });

  it('names what is wrong with a bad key', () => {
    expect(keyProblem('')).toBe('empty key');
    expect(keyProblem('/a')).toBe('starts with "/"');
    expect(keyProblem('a/../b')).toBe('has a ".." segment');
    expect(keyProblem('..')).toBe('has a ".." segment');
    expect(keyProblem('./a')).toBe('has a "." segment');
    expect(keyProblem('a//b')).toMatch(/empty segment/);
    expect(keyProblem('a/')).toMatch(/empty segment/);
    expect(keyProblem('a\\b')).toMatch(/control character or "\\"/);
    expect(keyProblem('a\nb')).toMatch(/control character/);
    expect(keyProblem('a\u007fb')).toMatch(/control character/);
    expect(keyProblem('a\ud800b')).toBe('contains a lone surrogate');
    expect(keyProblem('a/.~x')).toMatch(/reserved/);
    expect(keyProblem('x'.repeat(256))).toMatch(/segment longer than 255/);
    expect(keyProblem('ab/'.repeat(341) + 'a')).toBeNull(); // 1024 bytes
    expect(keyProblem('ab/'.repeat(341) + 'ab')).toMatch(/longer than 1024 bytes/);
    expect(keyProblem('日'.repeat(342))).toMatch(/longer than 1024 bytes/); // 1026 bytes
  });
});

describe('validatePrefix', () => {
  it('accepts the empty prefix and any beginning of a valid key', () => {
    for (const prefix of ['', 'a', 'a/', 'crawl/2026-11', 'a/.', 'a/..b', 'a/.h']) {
      expect(() => validatePrefix(prefix), prefix).not.toThrow();
    }
  });

  it('rejects prefixes no valid key starts with', () => {
    for (const prefix of ['/', '/a', '../', 'a/../', 'a//', './', 'a\\']) {
      expect(() => validatePrefix(prefix), prefix).toThrow(StorageError);
    }
  });
});
