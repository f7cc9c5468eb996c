#!/usr/bin/env node
// Compiles the production entry points to plain JavaScript, so no process transpiles
// TypeScript at run time. `npm run build` runs it through turbo (each workspace's `build`
// script names its target; the console's is `next build`); `npm start`, `npm test` and the
// `crawler` bin run it with --if-stale.
//
//   node scripts/build.mjs [--if-stale] [--quiet] [target ...]     (default: every target)
//
// Each entry is bundled by esbuild (ESM, platform node, target node20, source maps) with the
// `@crawler/*` workspace packages inlined and every npm dependency left external, resolved
// from node_modules at run time as before (chdb's native module, Prisma's runtime, piscina…).
// Files that source code finds next to itself through `new URL('<path>', import.meta.url)` —
// the frontier's Lua scripts, the ClickHouse and Postgres migrations — are copied under
// `<outdir>/assets/<their path in the repository>` and the URL is rewritten to point there, so
// a dist folder runs without the sources beside it. `<outdir>/build-info.json` lists every
// input with the build time: a target is stale when one of them changed since (or is gone).
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

/** What `npm run build` produces, per target: entry name → source, into `outdir`. */
export const TARGETS = {
  agent: {
    outdir: 'apps/agent/dist',
    entries: {
      main: 'apps/agent/src/main.ts',
      'parse-worker': 'packages/crawl-core/src/parse/parse-worker.ts',
    },
  },
  coordinator: {
    outdir: 'apps/coordinator/dist',
    entries: {
      main: 'apps/coordinator/src/main.ts',
      cli: 'apps/coordinator/src/cli/main.ts',
      migrate: 'apps/coordinator/src/db/migrate-cli.ts',
      // The one-shot `crawler crawl` forks its agent processes from this entry, each with its
      // parse pool.
      'one-shot-agent': 'apps/coordinator/src/cli/one-shot-agent.ts',
      'parse-worker': 'packages/crawl-core/src/parse/parse-worker.ts',
    },
    // The generated Prisma client is bundled, so it must exist and follow the schema.
    extraInputs: ['prisma/schema.prisma'],
    before: ensurePrismaClient,
  },
  'synthetic-web': {
    outdir: 'packages/synthetic-web/dist',
    entries: { cli: 'packages/synthetic-web/src/cli.ts' },
  },
  consume: {
    outdir: 'dist',
    entries: { consume: 'scripts/consume.ts' },
  },
};

const MODULE_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.tsx', '.jsx']);
const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.jsx': 'jsx' };
const ASSET_URL = /new URL\(\s*(['"])([^'"\n]+)\1\s*,\s*import\.meta\.url\s*\)/g;

function ensurePrismaClient() {
  const client = join(ROOT, 'apps/coordinator/src/db/generated/client.ts');
  const schema = join(ROOT, 'prisma/schema.prisma');
  if (existsSync(client) && statSync(schema).mtimeMs <= statSync(client).mtimeMs) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/prisma-generate.mjs'), '--quiet'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('generating the Prisma client failed');
}

/** Why `name` must be built again, or null when its dist folder is up to date. */
export function staleReason(name) {
  const target = TARGETS[name];
  if (!target) throw new Error(`unknown build target ${name}`);
  const outdir = join(ROOT, target.outdir);
  let info;
  try {
    info = JSON.parse(readFileSync(join(outdir, 'build-info.json'), 'utf8'));
  } catch {
    return 'not built yet';
  }
  for (const entry of Object.keys(target.entries)) {
    if (!existsSync(join(outdir, `${entry}.js`))) return `${target.outdir}/${entry}.js is missing`;
  }
  for (const input of info.inputs ?? []) {
    let mtime;
    try {
      mtime = statSync(join(ROOT, input)).mtimeMs;
    } catch {
      return `${input} is gone`;
    }
    if (mtime > info.builtAt) return `${input} changed`;
  }
  return null;
}

/** True when the target's sources are here to build from (a dist-only copy has none). */
function buildable(name) {
  return Object.values(TARGETS[name].entries).every((src) => existsSync(join(ROOT, src)));
}

/** Bare imports stay imports, except the workspace's own `@crawler/*` packages. */
const externalDependencies = {
  name: 'external-dependencies',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === 'entry-point' || args.path.startsWith('@crawler/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** Rewrites `new URL('<data file or folder>', import.meta.url)` to a copy under assets/. */
function relocateAssets(assets) {
  return {
    name: 'relocate-assets',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const contents = source.replace(ASSET_URL, (whole, _quote, rel) => {
          if (/^[a-z]+:/i.test(rel)) return whole;
          const target = resolve(dirname(args.path), rel);
          // Modules (the parse worker) and files that do not exist are left alone.
          if (!existsSync(target)) return whole;
          const isDir = statSync(target).isDirectory();
          if (!isDir && MODULE_EXTENSIONS.has(extname(target))) return whole;
          const inRepo = relative(ROOT, target);
          if (inRepo.startsWith('..')) throw new Error(`${args.path}: ${rel} is outside the repo`);
          assets.add(inRepo);
          const url = `./assets/${inRepo.split(sep).join('/')}${isDir ? '/' : ''}`;
          return `new URL(${JSON.stringify(url)}, import.meta.url)`;
        });
        return { contents, loader: LOADERS[extname(args.path)] ?? 'js' };
      });
    },
  };
}

/** Every file under `path` (itself when a file), repository-relative. */
function filesUnder(path) {
  const abs = join(ROOT, path);
  if (!statSync(abs).isDirectory()) return [path];
  return [path, ...readdirSync(abs).flatMap((f) => filesUnder(join(path, f)))];
}

/** Writes `data` to `file` through a rename, so a concurrent reader sees old or new, whole. */
function writeAtomic(file, data) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** One build at a time per target, across processes (parallel test files spawn the CLI). */
async function withLock(outdir, fn) {
  mkdirSync(outdir, { recursive: true });
  const lock = join(outdir, '.build-lock');
  const until = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // A lock older than two minutes belongs to a build that died.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true });
      } catch {}
      if (Date.now() > until) throw new Error(`${lock} is held by another build`);
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds one target into its dist folder. */
export async function buildTarget(name) {
  const target = TARGETS[name];
  const outdir = join(ROOT, target.outdir);
  target.before?.();
  const { build } = await import('esbuild');
  const assets = new Set();
  const startedAt = Date.now();
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(
      Object.entries(target.entries).map(([out, src]) => [out, join(ROOT, src)]),
    ),
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // Sources keep their file path in the map relative to the output; no minifying, so stack
    // traces stay readable even without --enable-source-maps.
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
    write: false,
    plugins: [externalDependencies, relocateAssets(assets)],
  });
  for (const w of result.warnings) console.warn(`build ${name}: warning: ${w.text}`);

  // Assets: a fresh copy swapped in, so a file deleted from the sources is gone from dist too.
  const assetDir = join(outdir, 'assets');
  const nextAssets = `${assetDir}.${process.pid}.tmp`;
  rmSync(nextAssets, { recursive: true, force: true });
  mkdirSync(nextAssets, { recursive: true });
  const assetInputs = [];
  for (const a of [...assets].sort()) {
    cpSync(join(ROOT, a), join(nextAssets, a), { recursive: true });
    assetInputs.push(...filesUnder(a));
  }
  for (const file of result.outputFiles) writeAtomic(file.path, file.contents);
  const oldAssets = `${assetDir}.${process.pid}.old`;
  if (existsSync(assetDir)) renameSync(assetDir, oldAssets);
  if (assets.size > 0) renameSync(nextAssets, assetDir);
  rmSync(nextAssets, { recursive: true, force: true });
  rmSync(oldAssets, { recursive: true, force: true });

  const inputs = [
    ...Object.keys(result.metafile.inputs).map((p) => relative(ROOT, resolve(ROOT, p))),
    ...assetInputs,
    ...(target.extraInputs ?? []),
    relative(ROOT, SELF),
  ];
  const info = {
    builtAt: startedAt,
    entries: Object.keys(target.entries).map((e) => `${e}.js`),
    inputs: [...new Set(inputs)].sort(),
    digest: createHash('sha256')
      .update(result.outputFiles.map((f) => f.hash).join(','))
      .digest('hex')
      .slice(0, 16),
  };
  writeAtomic(join(outdir, 'build-info.json'), JSON.stringify(info, null, 2) + '\n');
  return { outdir: target.outdir, files: info.entries, ms: Date.now() - startedAt };
}

/**
 * Builds the targets that are stale (or all of them with `force`). `log` receives one line per
 * target built. Throws with esbuild's messages when a build fails.
 */
export async function ensureBuilt(names = Object.keys(TARGETS), options = {}) {
  const log = options.log ?? ((line) => console.log(line));
  const built = [];
  for (const name of names) {
    const target = TARGETS[name];
    if (!target) throw new Error(`unknown build target ${name} (${Object.keys(TARGETS)})`);
    const first = options.force ? 'rebuild requested' : staleReason(name);
    if (!first) continue;
    if (!buildable(name)) {
      if (first === 'not built yet' || first.endsWith('is missing')) {
        throw new Error(`${target.outdir} is not built and its sources are not here`);
      }
      continue; // a dist-only copy: run what is there
    }
    await withLock(join(ROOT, target.outdir), async () => {
      // Another process may have built it while this one waited for the lock.
      const reason = options.force ? first : staleReason(name);
      if (!reason) return;
      const r = await buildTarget(name);
      built.push(name);
      log(`built ${r.outdir}/{${r.files.join(',')}} in ${r.ms} ms (${reason})`);
    });
  }
  return built;
}

/** esbuild's errors as compiler-style lines. */
export function describeBuildError(err) {
  if (!err?.errors?.length) return String(err?.message ?? err);
  return err.errors
    .map((e) =>
      e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ${e.text}` : e.text,
    )
    .join('\n');
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const args = process.argv.slice(2);
  const ifStale = args.includes('--if-stale');
  const quiet = args.includes('--quiet');
  const names = args.filter((a) => !a.startsWith('--'));
  try {
    await ensureBuilt(names.length > 0 ? names : undefined, {
      force: !ifStale,
      log: quiet ? () => {} : (line) => console.log(line),
    });
  } catch (err) {
    console.error(`✗ build failed:\n${describeBuildError(err)}`);
    process.exit(1);
  }
}
