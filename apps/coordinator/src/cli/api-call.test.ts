import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiCall, ApiCallError } from './api-call';

// A real HTTP server standing where the coordinator would: the CLI's error keeps the API's code.
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (req.url === '/v1/conflict')
      answer(409, JSON.stringify({ error: { code: 'CONFLICT', message: 'a move runs' } }));
    else if (req.url === '/v1/down')
      answer(503, JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'Redis is down' } }));
    else if (req.url === '/v1/gateway') answer(502, 'Bad Gateway');
    else answer(200, '{"ok":true}');
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  vi.stubEnv('COORDINATOR_URL', `http://127.0.0.1:${port}`);
  vi.stubEnv('CRAWLER_API_TOKEN', 'crw_test');
});

afterAll(() => {
  vi.unstubAllEnvs();
  server.close();
});

async function failure(path: string): Promise<ApiCallError> {
  const err = await apiCall('GET', path).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiCallError);
  return err as ApiCallError;
}

describe('apiCall errors', () => {
  it('keep the API code and status, with the retry class of the one table', async () => {
    const conflict = await failure('/v1/conflict');
    expect([conflict.code, conflict.status, conflict.retry]).toEqual(['CONFLICT', 409, 'give_up']);
    expect(conflict.message).toBe('GET /v1/conflict → 409: a move runs');
    const down = await failure('/v1/down');
    expect([down.code, down.status, down.retry]).toEqual(['UNAVAILABLE', 503, 'backoff']);
    await expect(apiCall('GET', '/v1/fine')).resolves.toEqual({ ok: true });
  });

  it('name an answer without our body by its status, and a coordinator that does not answer', async () => {
    const gateway = await failure('/v1/gateway');
    expect([gateway.code, gateway.status, gateway.retry]).toEqual(['UNAVAILABLE', 502, 'backoff']);
    vi.stubEnv('COORDINATOR_URL', 'http://127.0.0.1:1');
    const gone = await failure('/v1/fine');
    expect([gone.code, gone.status, gone.retry]).toEqual([
      'COORDINATOR_UNREACHABLE',
      null,
      'backoff',
    ]);
    expect(gone.message).toMatch(/did not answer/);
  });
});
