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
