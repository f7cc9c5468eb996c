// One lint config for the whole tree: typed rules (no floating promises, no any) and the
// package boundaries from STYLE.md (packages never import apps).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const TEST_FILES = ['**/*.test.ts', '**/test/**', '**/testing/**', '**/bench-*.ts'];
const TESTING_HELPERS = [
  {
    group: [
      '@crawler/testing',
      '@crawler/testing/*',
      '@crawler/synthetic-web/testing',
      '@crawler/synthetic-web/testing/*',
      // The same helpers reached by a relative path.
      '**/packages/testing/**',
      '**/synthetic-web/src/testing/**',
    ],
    message: 'production code never imports test helpers',
  },
];
// The domain package is pure: no network, disk, database or process I/O. Node's I/O modules
// under every name they answer to: `fs`, `fs/promises`, `node:fs`, `node:fs/promises`.
const NODE_IO = [
  'fs',
  'net',
  'http',
  'https',
  'http2',
  'child_process',
  'dns',
  'dgram',
  'tls',
  'worker_threads',
  'cluster',
  'readline',
];
const IO_MODULES = NODE_IO.map((name) => ({ name, message: 'the domain package does no I/O' }));
const IO_PATTERNS = [
  {
    group: [
      ...NODE_IO.flatMap((name) => [`${name}/*`, `node:${name}`, `node:${name}/*`]),
      'ioredis',
      'chdb',
      '@clickhouse/*',
      '@aws-sdk/*',
      'undici',
      'pino',
      'warcio',
      'bullmq',
      'pg',
      '@prisma/*',
      'piscina',
      '@crawler/adapters',
      '@crawler/adapters/*',
      '@crawler/analytics',
      '@crawler/analytics/*',
      '@crawler/frontier',
      '@crawler/frontier/*',
      '@crawler/crawl-core',
      '@crawler/crawl-core/*',
    ],
    message:
      'the domain package does no I/O: adapters live in packages/adapters or packages/analytics',
  },
];
// Production entry points outside apps/ and packages/: `npm run consume` (built by
// scripts/build.mjs) and `npm run capacity`.
const PRODUCTION_SCRIPTS = [
  'scripts/consume.ts',
  'scripts/capacity.ts',
  'scripts/capacity/**/*.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/.next/**',
      '**/dist/**',
      'data/**',
      'out/**',
      'test-results/**',
      'apps/coordinator/src/db/generated/**',
      '**/next-env.d.ts',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Package boundaries, one rule per kind of file (later blocks extend earlier ones, so
    // each block lists every restriction that applies to its files).
    files: ['packages/**/*.ts', 'apps/**/*.ts', 'apps/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: boundaries() }],
    },
  },
  {
    // The domain package: no I/O, and (outside its tests) no test helpers either.
    files: ['packages/domain/src/**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: IO_MODULES, patterns: [...boundaries(), ...IO_PATTERNS, ...TESTING_HELPERS] },
      ],
    },
  },
  {
    // Every other production file: no test helpers. (The domain block above lists its own.)
    files: [
      'packages/*/src/**/*.ts',
      'apps/*/src/**/*.ts',
      'apps/console/{app,lib,components}/**/*.{ts,tsx}',
    ],
    ignores: [...TEST_FILES, 'packages/testing/**', 'packages/domain/src/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [...boundaries(), ...TESTING_HELPERS] },
      ],
    },
  },
  {
    // Production entry points under scripts/ (`npm run consume`, `npm run capacity`).
    files: PRODUCTION_SCRIPTS,
    ignores: TEST_FILES,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: TESTING_HELPERS }],
    },
  },
);

/**
 * packages never import apps; apps never import apps (the console may import the
 * coordinator's router *type* for its typed tRPC client: types are erased, no code crosses).
 */
function boundaries() {
  return [
    {
      group: [
        '@crawler/coordinator',
        '@crawler/coordinator/*',
        '@crawler/agent',
        '@crawler/agent/*',
        '@crawler/console',
        '@crawler/console/*',
        '**/apps/**',
        '**/../agent/**',
        '**/../coordinator/**',
        '**/../console/**',
      ],
      allowTypeImports: true,
      message:
        'no code crosses from one app to another, nor from an app into a package: put it in a package (packages/*)',
    },
  ];
}
