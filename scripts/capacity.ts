import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@crawler/domain/config';
import { CapacityUsageError, parseCapacityArgs } from './capacity/capacity-options';
import { computeCapacity } from './capacity/compute-capacity';
import { formatTable, reportRows } from './capacity/format-report';
import { costValues, parseUnitCosts, UnitCostsError } from './capacity/unit-costs';

// `npm run capacity -- --pages-per-day N --urls-queued N [...]`: Redis memory, spill store,
// ClickHouse rows and bytes, WARC bytes per day, agents and cores for a load, each derived from
// the measured per-unit costs in docs/BENCHMARKS.md and the configuration (the environment's, as
// the processes would read it). Prints a table with each figure's derivation, then, last, one
// JSON line with every figure, like the benches. docs/CAPACITY.md explains each line.
const root = fileURLToPath(new URL('..', import.meta.url));
try {
  const { load, assumptions } = parseCapacityArgs(process.argv.slice(2));
  const costs = parseUnitCosts(readFileSync(`${root}docs/BENCHMARKS.md`, 'utf8'));
  const report = computeCapacity(load, assumptions, costValues(costs), loadConfig(process.env));
  console.log(formatTable(reportRows(report, costs)));
  console.log(JSON.stringify({ report: 'capacity', ...report }));
} catch (err) {
  if (err instanceof CapacityUsageError || err instanceof UnitCostsError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
