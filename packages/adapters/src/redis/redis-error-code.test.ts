import { describe, expect, it } from 'vitest';
import { redisErrorCode } from './redis-error-code';

describe('redisErrorCode', () => {
  it('is the first word of a Redis error reply', () => {
    expect(redisErrorCode(new Error('BUSYGROUP Consumer Group name already exists'))).toBe(
      'BUSYGROUP',
    );
    expect(redisErrorCode(new Error('NOSCRIPT No matching script.'))).toBe('NOSCRIPT');
    expect(redisErrorCode(new Error('ERR'))).toBe('ERR');
  });

  it('is null for anything else', () => {
    expect(redisErrorCode(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBeNull();
    expect(redisErrorCode(new Error('Busy group'))).toBeNull();
    expect(redisErrorCode('BUSYGROUP')).toBeNull();
  });
});
