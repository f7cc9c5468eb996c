import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { consoleErrorReply } from '../server/console-errors';
import { failureOf, httpStatusOf, settle } from './api-failure';

/** The client's error for an error answer, as the tRPC client builds it from the JSON. */
const answered = (error: unknown) => TRPCClientError.from({ error } as never);

describe('failureOf', () => {
  it('takes the API code from data.appCode, not from the message or tRPC’s code', () => {
    const err = answered({
      message: 'a change made with a session cookie needs …',
      code: -32003,
      data: { code: 'FORBIDDEN', httpStatus: 403, appCode: 'CSRF_REJECTED' },
    });
    expect(failureOf(err)).toEqual({
      ok: false,
      code: 'CSRF_REJECTED',
      message: 'a change made with a session cookie needs …',
      fields: [],
    });
    expect(httpStatusOf(err)).toBe(403);
  });

  it('falls back to tRPC’s code without an appCode', () => {
    const err = answered({
      message: 'm',
      code: -32004,
      data: { code: 'NOT_FOUND', httpStatus: 404 },
    });
    expect(failureOf(err).code).toBe('NOT_FOUND');
  });

  it('words a validation error by its fields, each with why', () => {
    const err = answered({
      message: '[{"code":"custom", …}]',
      code: -32600,
      data: {
        code: 'BAD_REQUEST',
        httpStatus: 400,
        appCode: 'BAD_REQUEST',
        fields: [
          { path: 'pattern', message: 'must start with "/"' },
          { path: '', message: 'give at least one setting' },
        ],
      },
    });
    expect(failureOf(err)).toMatchObject({
      code: 'BAD_REQUEST',
      message: 'pattern: must start with "/"; (input): give at least one setting',
      fields: [
        { path: 'pattern', message: 'must start with "/"' },
        { path: '(input)', message: 'give at least one setting' },
      ],
    });
  });

  it('reads the console’s own refusals like the coordinator’s', () => {
    const reply = consoleErrorReply('COORDINATOR_UNREACHABLE', 'Cannot reach the coordinator.');
    expect(reply.status).toBe(502);
    const err = answered((JSON.parse(reply.text) as { error: unknown }).error);
    expect(failureOf(err)).toMatchObject({ code: 'COORDINATOR_UNREACHABLE' });
    expect(httpStatusOf(err)).toBe(502);
  });

  it('says the console is unreachable when no answer came', async () => {
    const err = TRPCClientError.from(new TypeError('fetch failed'));
    expect(failureOf(err).code).toBe('CONSOLE_UNREACHABLE');
    expect(await settle(Promise.reject(err))).toMatchObject({
      ok: false,
      code: 'CONSOLE_UNREACHABLE',
    });
    expect(await settle(Promise.resolve(7))).toEqual({ ok: true, data: 7 });
  });
});
