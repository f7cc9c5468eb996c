import { describe, expect, it } from 'vitest';
import { isTrackingParam } from './strip-tracking-params';

describe('isTrackingParam', () => {
  it('matches utm_* and the known click ids, case-insensitively', () => {
    for (const k of ['utm_source', 'UTM_Medium', 'utm_', 'fbclid', 'gclid', 'dclid', 'msclkid']) {
      expect(isTrackingParam(k)).toBe(true);
    }
    for (const k of ['mc_cid', 'mc_eid', '_ga', 'yclid', 'GCLID'])
      expect(isTrackingParam(k)).toBe(true);
  });

  it('keeps ordinary parameters', () => {
    for (const k of ['utm', 'q', 'id', 'page', '_gac', 'gclid2', 'xutm_source']) {
      expect(isTrackingParam(k)).toBe(false);
    }
  });
});

describe('session ids', () => {
  it('drops session-id parameters so one page does not become endless URLs', async () => {
    const { normalizeUrl } = await import('./normalize-url');
    const a = normalizeUrl('http://shop.test/item?id=3&sid=ab12cd');
    const b = normalizeUrl('http://shop.test/item?PHPSESSID=ffff&id=3');
    expect(a).toMatchObject({ ok: true, url: 'http://shop.test/item?id=3' });
    expect(b).toMatchObject({ ok: true, url: 'http://shop.test/item?id=3' });
  });
});
