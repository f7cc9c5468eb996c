import { openAnalytics } from '@crawler/analytics';
const a = await openAnalytics({ path: process.argv[2]! });
const t = performance.now(); await a.migrate(); console.log('migrate ms', performance.now() - t);
await a.close();
