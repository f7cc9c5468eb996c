export {};
// `npm run bench -- <name> [flags]`: benchmarks that print, as their last stdout line, one JSON
// object with their figures. Each lives in scripts/bench/<name>.ts.
const [name, ...args] = process.argv.slice(2);
const benches: Record<
  string,
  () => Promise<{ run(args: string[]): Promise<Record<string, unknown>> }>
> = {
  agent: () => import('./bench/agent'),
  console: () => import('./bench/console'),
  e2e: () => import('./bench/e2e'),
  frontier: () => import('./bench/frontier'),
  ingest: () => import('./bench/ingest'),
};
const load = name ? benches[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join('|')}> [flags]`);
  process.exit(2);
}
const result = await (await load()).run(args);
console.log(JSON.stringify(result));
process.exit(0);
