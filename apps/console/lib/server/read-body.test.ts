import { describe, expect, it } from 'vitest';
import { readBodyText } from './read-body';

/** A request whose body streams `chunks` (no Content-Length unless given), recording pulls. */
function streamed(chunks: number[], headers: Record<string, string> = {}) {
  const state = { pulled: 0, cancelled: false };
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled++;
      const size = chunks[i++];
      if (size === undefined) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(0x61));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const request = new Request('http://console.test/api', {
    method: 'POST',
    body,
    headers,
    duplex: 'half',
  } as RequestInit);
  return { request, state };
}

describe('readBodyText', () => {
  it('reads a body within the limit', async () => {
    const r = await readBodyText(
      new Request('http://console.test/api', { method: 'POST', body: '{"a":"é"}' }),
      100,
    );
    expect(r).toEqual({ ok: true, text: '{"a":"é"}' });
    const exact = await readBodyText(streamed([60, 40]).request, 100);
    expect(exact.ok && exact.text.length).toBe(100);
  });

  it('refuses a declared Content-Length over the limit without reading the body', async () => {
    const { request, state } = streamed([10, 10], { 'content-length': '2000000' });
    const r = await readBodyText(request, 1024 * 1024);
    expect(r).toEqual({ ok: false, tooLarge: 'The request is too large (1 MiB at most).' });
    expect(state.pulled).toBeLessThanOrEqual(1); // a stream may pull once on creation
  });

  it('counts a body without Content-Length as it arrives and stops at the limit', async () => {
    const { request, state } = streamed(Array.from({ length: 1000 }, () => 1024));
    const r = await readBodyText(request, 16 * 1024);
    expect(r).toEqual({ ok: false, tooLarge: 'The request is too large (16 KiB at most).' });
    expect(state.pulled).toBeLessThan(20); // not the 1,000 chunks offered
    expect(state.cancelled).toBe(true);
  });

  it('does not trust a Content-Length that understates the body', async () => {
    const { request } = streamed([600, 600], { 'content-length': '10' });
    const r = await readBodyText(request, 1000);
    expect(r.ok).toBe(false);
  });

  it('an empty body is empty text', async () => {
    expect(
      await readBodyText(new Request('http://console.test/api', { method: 'POST' }), 10),
    ).toEqual({ ok: true, text: '' });
  });
});
