import { describe, expect, it } from 'vitest';
import { parseClusterNodes } from '@crawler/adapters/redis';
import { AppError } from '../api/app-error';
import { resolveNode } from './cluster-access';

const NODES =
  parseClusterNodes(`aaaaaaaa11111111111111111111111111111111 10.0.0.1:6379@16379,redis-1 myself,master - 0 0 1 connected 0-8000
aaaaaaaa22222222222222222222222222222222 10.0.0.2:6379@16379,redis-2 master - 0 0 2 connected 8001-16383
bbbbbbbb33333333333333333333333333333333 10.0.0.3:6379@16379,redis-3 slave aaaaaaaa11111111111111111111111111111111 0 0 1 connected
`);

describe('resolveNode', () => {
  it('takes a master by host:port, announced hostname:port, node id or unique id prefix', () => {
    expect(resolveNode(NODES, '10.0.0.2:6379').hostname).toBe('redis-2');
    expect(resolveNode(NODES, ' REDIS-2:6379 ').hostname).toBe('redis-2');
    expect(resolveNode(NODES, 'aaaaaaaa22222222222222222222222222222222').hostname).toBe('redis-2');
    expect(resolveNode(NODES, 'aaaaaaaa2').hostname).toBe('redis-2');
  });

  it('refuses a replica, an unknown node and an ambiguous or short id prefix (400)', () => {
    const reasonOf = (spec: string): unknown => {
      try {
        resolveNode(NODES, spec);
      } catch (err) {
        if (err instanceof AppError && err.code === 'BAD_REQUEST')
          return (err.details as { reason?: string }).reason;
        throw err;
      }
      return null;
    };
    expect(reasonOf('redis-3:6379')).toBe('SHARD_MOVE_NOT_MASTER');
    for (const spec of ['10.0.0.9:6379', 'aaaaaaaa', 'aaaa'])
      expect(reasonOf(spec), spec).toBe('SHARD_MOVE_UNKNOWN_NODE');
  });
});
