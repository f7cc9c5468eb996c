import { describe, expect, it } from 'vitest';
import type { HostPolicyRow } from '../db/host-policy-repository';
import { effectivePolicy, suffixesOf, suffixOfPattern } from './effective-policy';

const row = (host: string, fields: Partial<HostPolicyRow>): HostPolicyRow => ({
  host,
  rateLimitRps: null,
  blocked: null,
  dailyBudget: null,
  allowlisted: null,
  maxConnections: null,
  updatedAt: new Date(0),
  ...fields,
});

describe('effectivePolicy', () => {
  it('lists the suffixes of a host, longest first', () => {
    expect(suffixesOf('a.b.example.com')).toEqual([
      'a.b.example.com',
      'b.example.com',
      'example.com',
      'com',
    ]);
    expect(suffixOfPattern('*.example.com')).toBe('example.com');
    expect(suffixOfPattern('example.com')).toBeNull();
  });

  it('takes each field from the host, else the longest pattern setting it, else the default', () => {
    const patterns = [
      row('*.example.com', { rateLimitRps: 1, blocked: true, dailyBudget: 10 }),
      row('*.b.example.com', { rateLimitRps: 5 }),
    ];
    expect(
      effectivePolicy('a.b.example.com', row('a.b.example.com', { blocked: false }), patterns),
    ).toEqual({
      rateLimitRps: 5,
      blocked: false,
      dailyBudget: 10,
      allowlisted: false,
      maxConnections: null,
    });
    expect(effectivePolicy('c.example.com', null, patterns)).toEqual({
      rateLimitRps: 1,
      blocked: true,
      dailyBudget: 10,
      allowlisted: false,
      maxConnections: null,
    });
    // A pattern covers its own domain too.
    expect(effectivePolicy('example.com', null, patterns).blocked).toBe(true);
    expect(effectivePolicy('other.com', null, patterns)).toEqual({
      rateLimitRps: null,
      blocked: false,
      dailyBudget: null,
      allowlisted: false,
      maxConnections: null,
    });
  });

  it('ignores patterns that do not cover the host', () => {
    const patterns = [row('*.ample.com', { blocked: true })];
    expect(effectivePolicy('example.com', null, patterns).blocked).toBe(false);
  });
});
