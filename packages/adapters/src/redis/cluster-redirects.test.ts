import { describe, expect, it } from 'vitest';
import { isClusterRedirect, retryClusterRedirects } from './cluster-redirects';

const pipelineError = new Error(
  'All keys in the pipeline should belong to the same slots allocation group',
);

describe('isClusterRedirect', () => {
  it('is true for redirect replies and for an auto-pipeline split by a slot map refresh', () => {
    expect(isClusterRedirect(new Error('MOVED 471 127.0.0.1:7102'))).toBe(true);
    expect(isClusterRedirect(new Error('ASK 471 127.0.0.1:7102'))).toBe(true);
    expect(
      isClusterRedirect(new Error('TRYAGAIN Multiple keys request during rehashing of slot')),
    ).toBe(true);
    expect(isClusterRedirect(new Error('CLUSTERDOWN The cluster is down'))).toBe(true);
    expect(isClusterRedirect(pipelineError)).toBe(true);
  });

  it('is false for anything else', () => {
    expect(isClusterRedirect(new Error('ERR unknown command'))).toBe(false);
    expect(isClusterRedirect(new Error('connect ECONNREFUSED 127.0.0.1:7101'))).toBe(false);
    expect(isClusterRedirect('MOVED 1 x:1')).toBe(false);
  });
});

describe('retryClusterRedirects', () => {
  it('calls again while the call meets a redirect, and returns its answer', async () => {
    let calls = 0;
    const answer = await retryClusterRedirects(
      async () => {
        if (++calls < 3) throw pipelineError;
        return 'ok';
      },
      { waitMs: 1 },
    );
    expect([answer, calls]).toEqual(['ok', 3]);
  });

  it('throws any other error at once, and the last redirect after its attempts', async () => {
    let calls = 0;
    const other = new Error('ERR wrong number of arguments');
    await expect(
      retryClusterRedirects(
        async () => {
          calls++;
          throw other;
        },
        { waitMs: 1 },
      ),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      retryClusterRedirects(
        async () => {
          calls++;
          throw pipelineError;
        },
        { attempts: 3, waitMs: 1 },
      ),
    ).rejects.toBe(pipelineError);
    expect(calls).toBe(3);
  });
});
