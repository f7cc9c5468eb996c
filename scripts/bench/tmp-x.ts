// scratch (deleted at the end): load rows once into /tmp/chx/data, run queries from a file.
import { readFileSync, existsSync } from 'node:fs';
import { openAnalytics, type FetchRow } from '@crawler/analytics';
const HOSTS = 5000;
const STATUSES = [200, 200, 200, 200, 304, 301, 404, 503, 0] as const;
function fetchRows(count: number, offset: number, now: number, total: number): FetchRow[] {
  return Array.from({ length: count }, (_, k) => {
    const i = offset + k;
    const status = STATUSES[i % STATUSES.length]!;
    const host = `host${i % HOSTS}.example.com`;
    return {
      url_fp: ((BigInt(i) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn).toString(16).padStart(16, '0'),
      url: `https://${host}/section/${i % 97}/article-${i}.html`, host,
      fetched_at: new Date(now - Math.floor(((total - i) / total) * 86_400_000)),
      status, error_code: status === 0 ? 'timeout' : '', bytes: 20_000 + (i % 5000), fetch_ms: 50 + (i % 900),
      content_type: 'text/html; charset=utf-8',
      content_hash: status === 200 ? (i % 200_000).toString(16).padStart(64, '0') : '',
      depth: i % 8, agent_id: `agent-${i % 4}`, warc_key: '', warc_offset: 0, warc_length: 0,
      redirect_to: status === 301 ? `https://${host}/moved/${i}` : '',
      change: i < HOSTS * 97 ? 'new' : i % 3 === 0 ? 'changed' : 'unchanged',
      simhash: (i % 700).toString(16).padStart(16, '0'),
      duplicate_of: i % 50 === 0 ? `https://${host}/section/0/article-0.html` : '',
    };
  });
}
const dir = process.argv[2]!;
const fresh = !existsSync(dir);
const a = await openAnalytics({ path: dir });
if (process.env.NOMIGRATE !== '1') await a.migrate();
if (fresh) {
  const rows = Number(process.env.ROWS ?? 1_000_000); const now = Date.now();
  for (let o = 0; o < rows; o += 100_000) await a.insertFetches(fetchRows(Math.min(100_000, rows - o), o, now, rows));
  console.log('inserted');
}
const runs = Number(process.env.RUNS ?? 7);
const params = JSON.parse(process.env.PARAMS ?? '{}');
for (const f of process.argv.slice(3)) {
  for (const q of readFileSync(f, 'utf8').split(/\n---\n/)) {
    if (!q.trim()) continue;
    const ms: number[] = []; let out: unknown[] = [];
    for (let r = 0; r < runs; r++) { const t = performance.now(); out = await a.queryJson(q, params); ms.push(performance.now() - t); }
    ms.sort((x, y) => x - y);
    console.log(`--- ${q.trim().split('\n')[0]!.slice(0, 100)}\n median ${ms[Math.floor(runs / 2)]!.toFixed(1)} ms min ${ms[0]!.toFixed(1)}; rows ${out.length}; ${JSON.stringify(out).slice(0, Number(process.env.SHOW ?? 300))}`);
  }
}
await a.close();
