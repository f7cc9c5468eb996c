import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthKit, type AuthKit } from './auth-kit';

// `POST /v1/shards/{shard}/move` and the reads beside it, over REST and tRPC, on the machine's
// single Redis: admins only; a single Redis has nowhere to move a shard to (409 with
// `details.reason` SHARD_MOVE_NOT_CLUSTER), and nothing is frozen or recorded. The move itself is
// tested on the local cluster: src/shards/move-shard.integration.test.ts.
let kit: AuthKit;

beforeAll(async () => {
  kit = await startAuthKit('shard-move-api');
}, 60_000);

afterAll(async () => {
  await kit?.stop();
});

interface ErrorBody {
  error: { code: string; message: string; details?: { reason?: string; needed?: string } };
}

describe('POST /v1/shards/{shard}/move', () => {
  it('is for admins: an operator and a viewer get 403', async () => {
    for (const as of ['operator', 'viewer'] as const) {
      const res = await kit.call<ErrorBody>('POST', '/v1/shards/0/move', {
        as,
        body: { to: '127.0.0.1:7102' },
      });
      expect(res.status, as).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.details?.needed).toBe('admin');
    }
  });

  it('refuses on a single Redis (409 SHARD_MOVE_NOT_CLUSTER), freezing nothing', async () => {
    const res = await kit.call<ErrorBody>('POST', '/v1/shards/3/move', {
      body: { to: '127.0.0.1:7102' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.details?.reason).toBe('SHARD_MOVE_NOT_CLUSTER');
    expect(res.body.error.message).toMatch(/single Redis/);
    const list = await kit.call<{
      items: Array<{ shard: number; frozen: boolean; move: unknown }>;
    }>('GET', '/v1/shards', { as: 'viewer' });
    expect(list.status).toBe(200);
    expect(list.body.items[3]).toMatchObject({ shard: 3, frozen: false, move: null });
    const status = await kit.call<ErrorBody>('GET', '/v1/shards/3/move', { as: 'viewer' });
    expect(status.status).toBe(404);
    expect(status.body.error.code).toBe('NOT_FOUND');
    const audit = await kit.call<{ items: unknown[] }>('GET', '/v1/audit?action=shards.move');
    expect(audit.body.items).toEqual([]);
  });

  it('checks its input: a shard number, a node', async () => {
    const noNode = await kit.call<ErrorBody>('POST', '/v1/shards/3/move', { body: {} });
    expect(noNode.status).toBe(400);
    const notNumber = await kit.call<ErrorBody>('POST', '/v1/shards/x/move', {
      body: { to: 'a:1' },
    });
    expect(notNumber.status).toBe(400);
  });

  it('answers over tRPC with the same rules', async () => {
    const res = await kit.call<{
      error: { data: { appCode: string; details?: { reason?: string } } };
    }>('POST', '/trpc/shards.move', { body: { shard: 1, to: '127.0.0.1:7102' } });
    expect(res.status).toBe(409);
    expect(res.body.error.data).toMatchObject({
      appCode: 'CONFLICT',
      details: { reason: 'SHARD_MOVE_NOT_CLUSTER' },
    });
    const forbidden = await kit.call<{ error: { data: { appCode: string } } }>(
      'POST',
      '/trpc/shards.move',
      { as: 'operator', body: { shard: 1, to: '127.0.0.1:7102' } },
    );
    expect(forbidden.status).toBe(403);
  });

  it('lists no Redis Cluster node to move to (GET /v1/shards/nodes)', async () => {
    const res = await kit.call('GET', '/v1/shards/nodes', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ cluster: false, nodes: [] });
  });
});
