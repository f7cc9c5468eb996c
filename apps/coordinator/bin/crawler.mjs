#!/usr/bin/env node
// The `crawler` command (`npx crawler …`): runs the compiled CLI, apps/coordinator/dist/cli.js.
// When that is missing or older than its sources it is built first (what `npm run build` does
// for the coordinator, ~1 s; the note goes to stderr so stdout stays the command's output).
import { existsSync } from 'node:fs';

const builder = new URL('../../../scripts/build.mjs', import.meta.url);
if (existsSync(builder)) {
  const { describeBuildError, ensureBuilt } = await import(builder.href);
  try {
    await ensureBuilt(['coordinator'], { log: (line) => console.error(`crawler: ${line}`) });
  } catch (err) {
    console.error(
      `crawler: building the CLI failed; fix the error or run \`npm run build\`:\n${describeBuildError(err)}`,
    );
    process.exit(1);
  }
}
const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('crawler: apps/coordinator/dist/cli.js is missing; run `npm run build`');
  process.exit(1);
}
await import(cli.href);
