import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLua } from './load-lua';

describe('loadLua', () => {
  const dir = mkdtempSync(join(tmpdir(), 'load-lua-'));
  mkdirSync(join(dir, 'includes'));
  writeFileSync(join(dir, 'includes', 'a.lua'), 'local A = 1');
  // Names its own need (a) with the root-relative name, as the script does.
  writeFileSync(join(dir, 'includes', 'b.lua'), '--- @include "includes/a"\nlocal B = A + 1');
  writeFileSync(
    join(dir, 'script-1.lua'),
    '--- @include "includes/b"\n--- @include "includes/a"\nreturn B',
  );
  writeFileSync(join(dir, 'plain-0.lua'), 'return 1');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a script by URL or path', () => {
    expect(loadLua(pathToFileURL(join(dir, 'plain-0.lua')))).toBe('return 1');
    expect(loadLua(join(dir, 'plain-0.lua'))).toBe('return 1');
  });

  it('inlines includes once each, where first named, resolved against the script folder', () => {
    expect(loadLua(join(dir, 'script-1.lua'))).toBe('local A = 1\nlocal B = A + 1\n\nreturn B');
  });

  it('resolves includes against the root given, for a file read from a subfolder', () => {
    const root = pathToFileURL(`${dir}/`);
    expect(loadLua(new URL('includes/b.lua', root), root)).toBe('local A = 1\nlocal B = A + 1');
  });
});
