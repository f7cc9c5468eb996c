import { fleetRobotsTxt } from '../../../../packages/synthetic-web/src/server/hostile-fleet';
import { parseRobots } from '@crawler/shared/robots';
const MiB = 1024 * 1024;
const src = Buffer.from(fleetRobotsTxt(500 * 1024, 1000));
const mode = process.argv[2] ?? 'json';
const cache = new Map<string, unknown>(); let bytes = 0; const order: [string, number][] = [];
let peakRss = 0, peakHeap = 0;
const t = setInterval(() => { const m = process.memoryUsage(); peakRss = Math.max(peakRss, m.rss); peakHeap = Math.max(peakHeap, m.heapUsed); }, 20);
async function flow(i: number) {
  const body = Buffer.from(src); // what undici hands over
  await new Promise((r) => setTimeout(r, Math.random() * 20));
  const text = body.toString('utf8');
  const stored = mode === 'json' ? JSON.stringify({ status: 200, body: text, failures: 0, fetchedAt: Date.now() }) : '';
  await new Promise((r) => setTimeout(r, 2)); // redis set
  void stored;
  const rules = parseRobots(text, `http://h${i}.test/robots.txt`, 'crawlerbot');
  cache.set(`h${i}`, rules); order.push([`h${i}`, rules.approxBytes]); bytes += rules.approxBytes;
  while (bytes > 32 * MiB) { const [k, b] = order.shift()!; cache.delete(k); bytes -= b; }
}
let next = 0;
await Promise.all(Array.from({ length: 256 }, async () => { while (next < 2000) await flow(next++); }));
clearInterval(t);
console.log(JSON.stringify({ mode, peakRssMB: Math.round(peakRss / MiB), peakHeapMB: Math.round(peakHeap / MiB) }));
