import { describe, expect, it } from 'vitest';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../api/app-error';
import type { RequestInfo } from './caller';
import { assertNotCrossSite, isSafeMethod } from './csrf';

const req = (headers: IncomingHttpHeaders): RequestInfo => ({
  method: 'POST',
  headers: { host: 'api.example:4000', ...headers },
  requestId: 'r',
  sourceIp: null,
  setCookie: () => undefined,
});

describe('assertNotCrossSite', () => {
  it.each<IncomingHttpHeaders>([
    { 'x-crawler-csrf': '1' },
    { 'sec-fetch-site': 'same-origin' },
    { origin: 'http://api.example:4000' },
    { origin: 'https://api.example:4000' },
  ])('accepts %o', (h) => {
    expect(() => assertNotCrossSite(req(h))).not.toThrow();
  });

  it.each<IncomingHttpHeaders>([
    {},
    { 'x-crawler-csrf': 'yes' },
    { 'sec-fetch-site': 'same-site' },
    { 'sec-fetch-site': 'cross-site' },
    { origin: 'http://api.example' },
    { origin: 'http://evil.example' },
    { origin: 'null' },
    { origin: 'not a url' },
  ])('refuses %o with CSRF_REJECTED', (h) => {
    let caught: unknown;
    try {
      assertNotCrossSite(req(h));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('CSRF_REJECTED');
    expect((caught as AppError).httpStatus).toBe(403);
  });

  it('treats GET, HEAD and OPTIONS as safe', () => {
    expect(['GET', 'head', 'OPTIONS'].map(isSafeMethod)).toEqual([true, true, true]);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map(isSafeMethod)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
