import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The package graph the lint rules assume (eslint.config.mjs checks imports; this checks what each
// workspace declares, i.e. what a production install of it pulls in).
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

function workspaces(): Map<string, Manifest & { dir: string }> {
  const found = new Map<string, Manifest & { dir: string }>();
  for (const group of ['apps', 'packages']) {
    for (const dir of readdirSync(join(ROOT, group))) {
      const manifest = JSON.parse(
        readFileSync(join(ROOT, group, dir, 'package.json'), 'utf8'),
      ) as Manifest;
      found.set(manifest.name, { ...manifest, dir: `${group}/${dir}` });
    }
  }
  return found;
}

/** Every npm package a workspace's production dependencies reach through other workspaces. */
function productionClosure(name: string, all: ReturnType<typeof workspaces>): Set<string> {
  const seen = new Set<string>();
  const visit = (n: string): void => {
    for (const dep of Object.keys(all.get(n)?.dependencies ?? {})) {
      if (seen.has(dep)) continue;
      seen.add(dep);
      if (all.has(dep)) visit(dep);
    }
  };
  visit(name);
  return seen;
}

describe('package boundaries', () => {
  const all = workspaces();

  it('no app depends on another app', () => {
    const apps = [...all.values()].filter((w) => w.dir.startsWith('apps/')).map((w) => w.name);
    for (const app of apps) {
      const deps = Object.keys(all.get(app)?.dependencies ?? {});
      expect(
        deps.filter((d) => apps.includes(d)),
        app,
      ).toEqual([]);
    }
  });

  it('the agent installs no ClickHouse client, Postgres driver or test helpers', () => {
    const closure = productionClosure('@crawler/agent', all);
    for (const banned of [
      'chdb',
      '@clickhouse/client',
      '@crawler/analytics',
      '@prisma/client',
      '@crawler/testing',
    ]) {
      expect(closure.has(banned), banned).toBe(false);
    }
  });

  it('the domain package depends on nothing that does I/O', () => {
    expect(Object.keys(all.get('@crawler/domain')?.dependencies ?? {}).sort()).toEqual([
      'saxes',
      'zod',
    ]);
  });
});
