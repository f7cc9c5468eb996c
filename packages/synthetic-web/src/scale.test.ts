import { describe, expect, it } from 'vitest';
import { startSyntheticWeb } from './index.js';
import { httpGet } from './testing/http-get.js';

describe('5,000 hosts', () => {
  it('start and close within a few seconds', async () => {
    const t0 = performance.now();
    const web = await startSyntheticWeb({ hosts: 5000, seed: 1 });
    const started = performance.now() - t0;
    try {
      expect(web.hosts).toHaveLength(5000);
      expect(new Set(Object.values(web.dnsMap)).size).toBe(5000);
      const last = web.hosts[4999];
      if (last === undefined) throw new Error('missing host');
      expect(last.host).toBe('s4999.web.test');
      const r = await httpGet(last.ip, web.port, last.host, '/robots.txt');
      expect(r.status).toBeGreaterThan(0);
      expect(started).toBeLessThan(5000);
    } finally {
      const t1 = performance.now();
      await web.close();
      expect(performance.now() - t1).toBeLessThan(3000);
    }
  });
});
