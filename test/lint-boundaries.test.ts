import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The import boundaries of eslint.config.mjs, checked by linting one-line probes as if they were
// real files of the tree (the paths must exist: typed linting finds them in their tsconfig).
// package-boundaries.test.ts checks what each workspace declares; this, what code may import.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

const DOMAIN = 'packages/domain/src/errors/index.ts';
const DOMAIN_TEST = 'packages/domain/src/url/normalize-url.conformance.test.ts';
const APP = 'apps/coordinator/src/api/rest.ts';
const PACKAGE = 'packages/frontier/src/admin.ts';
const APP_TEST = 'apps/coordinator/test/error-codes.integration.test.ts';
const SCRIPTS = ['scripts/consume.ts', 'scripts/capacity.ts', 'scripts/capacity/unit-costs.ts'];

/** Whether importing `spec` from `file` breaks an import boundary. */
async function refused(file: string, spec: string): Promise<boolean> {
  const [result] = await eslint.lintText(
    `import * as probe from '${spec}';\nexport const used = probe;\n`,
    { filePath: `${ROOT}${file}` },
  );
  const fatal = result!.messages.filter((m) => m.fatal);
  expect(fatal, `${file} <- ${spec}`).toEqual([]);
  return result!.messages.some((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');
}

describe('lint boundaries (eslint.config.mjs)', () => {
  it('the domain package imports no I/O module, under any of its names', async () => {
    for (const spec of [
      'fs',
      'fs/promises',
      'node:fs',
      'node:fs/promises',
      'dns/promises',
      'node:dns/promises',
      'net',
      'node:http2',
      'child_process',
      'worker_threads',
      'ioredis',
      'pg',
      '@crawler/adapters/redis',
      '@crawler/crawl-core',
    ])
      expect(await refused(DOMAIN, spec), spec).toBe(true);
    // What it may import.
    for (const spec of ['zod', 'node:url', './index'])
      expect(await refused(DOMAIN, spec), spec).toBe(false);
  }, 120_000);

  it('non-test code imports no testing helper: packages, the domain, apps, production scripts', async () => {
    for (const file of [DOMAIN, PACKAGE, APP, ...SCRIPTS])
      for (const spec of [
        '@crawler/testing',
        '@crawler/synthetic-web/testing',
        '../../../packages/testing/src/index',
      ])
        expect(await refused(file, spec), `${file} <- ${spec}`).toBe(true);
    // Tests may.
    for (const file of [DOMAIN_TEST, APP_TEST, 'scripts/capacity/capacity.test.ts'])
      expect(await refused(file, '@crawler/testing'), file).toBe(false);
  }, 120_000);

  it('apps never import apps, packages never import apps', async () => {
    expect(await refused(APP, '@crawler/agent')).toBe(true);
    expect(await refused(PACKAGE, '@crawler/coordinator')).toBe(true);
    expect(await refused(DOMAIN, '@crawler/coordinator')).toBe(true);
  }, 120_000);
});
