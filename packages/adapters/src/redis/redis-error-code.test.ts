import { describe, expect, it } from 'vitest';
import { redisErrorCode, relayedRedisErrorCode } from './redis-error-code';

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

describe('relayedRedisErrorCode', () => {
  it('is the code of the reply a node relays from another inside its ERR', () => {
    const relayed = new Error(
      'ERR Target instance replied with error: BUSYKEY Target key name already exists.',
    );
    expect(relayedRedisErrorCode(relayed)).toBe('BUSYKEY');
    expect(redisErrorCode(relayed)).toBe('ERR');
  });

  it('is null for a reply that relays nothing', () => {
    expect(relayedRedisErrorCode(new Error('BUSYKEY Target key name already exists.'))).toBeNull();
    expect(relayedRedisErrorCode(new Error('ERR replied with error: busykey'))).toBeNull();
    expect(relayedRedisErrorCode('ERR Target instance replied with error: BUSYKEY')).toBeNull();
  });
});
