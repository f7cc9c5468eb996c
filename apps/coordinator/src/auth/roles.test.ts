import { describe, expect, it } from 'vitest';
import { AppError } from '../api/app-error';
import { atLeast, lowerRole, requireRole } from './roles';

describe('roles', () => {
  it('orders viewer < operator < admin', () => {
    expect(atLeast('admin', 'operator')).toBe(true);
    expect(atLeast('operator', 'operator')).toBe(true);
    expect(atLeast('viewer', 'operator')).toBe(false);
    expect(lowerRole('admin', 'viewer')).toBe('viewer');
    expect(lowerRole('operator', 'admin')).toBe('operator');
  });

  it('requireRole names what was asked, the role needed and the one held', () => {
    let caught: unknown;
    try {
      requireRole('viewer', 'operator', 'hosts.update');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('FORBIDDEN');
    expect((caught as AppError).message).toBe(
      'hosts.update needs the operator role; this caller has viewer',
    );
    expect(() => requireRole('admin', 'operator', 'x')).not.toThrow();
  });
});
