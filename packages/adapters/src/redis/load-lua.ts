import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const INCLUDE = /^--- @include "([^"]+)"$/gm;

/**
 * Reads a Lua script (a `file:` URL, usually `new URL('./x.lua', import.meta.url)`, or a path)
 * and inlines its `--- @include "name"` lines: `name` + `.lua`, resolved against `includeRoot`
 * (default: the script's own folder) for the script and every file it includes alike. Each file
 * is inlined once, where it is first included: a later line naming it again becomes empty, so an
 * include may name what it needs itself (its locals must come before the code using them).
 */
export function loadLua(file: URL | string, includeRoot?: URL): string {
  const url = typeof file === 'string' ? pathToFileURL(file) : file;
  return inline(url, includeRoot ?? new URL('./', url), new Set<string>());
}

function inline(url: URL, root: URL, included: Set<string>): string {
  return readFileSync(url, 'utf8').replace(INCLUDE, (_line, name: string) => {
    if (included.has(name)) return '';
    included.add(name);
    return inline(new URL(`${name}.lua`, root), root, included);
  });
}
