import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { telemetryRowSchema } from '@crawler/domain/messages';
import { compileFastCheck } from './fast-check';
import { fetchRowSchema } from './fetch-row';

// The compiled check must answer exactly as zod's safeParse: for every field of both row
// schemas, every value of a catalogue of edge cases (types, bounds ±1, lengths ±1, NaN,
// infinities, unsafe integers, patterns) is tried in an otherwise valid row.

const hex = (n: number) => 'a'.repeat(n);
const validTelemetry = {
  url_fp: hex(16),
  url: 'https://a.example/',
  host: 'a.example',
  fetched_at: 1_796_000_000_000,
  status: 200,
  error_code: '',
  bytes: 10,
  fetch_ms: 5,
  content_type: 'text/html',
  content_hash: hex(64),
  depth: 1,
  agent_id: 'agent-1',
  warc_key: 'k',
  warc_offset: 0,
  warc_length: 1,
  redirect_to: '',
  record_type: 'response',
  record_id: '<urn:uuid:1>',
  payload_digest: 'sha1:X',
  etag: '"e"',
  last_modified: '',
  change: 'new',
  duplicate_of: '',
  simhash: hex(16),
};
const validFetch = { ...validTelemetry, fetched_at: new Date(validTelemetry.fetched_at) };

function catalogue(): unknown[] {
  const values: unknown[] = [
    undefined,
    null,
    true,
    {},
    [],
    '',
    '5',
    'x',
    'timeout',
    'TIMEOUT',
    'response',
    'revisit',
    'new',
    'changed',
    'unchanged',
    'bogus',
    'é'.repeat(3),
    '\n',
    `${hex(16)}\n`,
    new Date(0),
    new Date(Number.NaN),
    Number.NaN,
    Infinity,
    -Infinity,
    -0,
    0.5,
    1.5,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    -Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER - 2,
    1e300,
  ];
  for (const n of [0, 1, 16, 63, 64, 65, 100, 101, 128, 129, 200, 201, 253, 254, 255, 256])
    values.push(hex(n), 'g'.repeat(n), `${hex(Math.max(0, n - 1))}G`);
  for (const n of [500, 501, 1024, 1025, 8192, 8193]) values.push('x'.repeat(n));
  for (const n of [-1, 0, 1, 99, 100, 999, 1000, 65_535, 65_536, 0xffff_ffff, 2 ** 32])
    values.push(n, n + 0.5);
  return values;
}

for (const [name, schema, valid] of [
  ['telemetryRowSchema', telemetryRowSchema, validTelemetry],
  ['fetchRowSchema', fetchRowSchema, validFetch],
] as const) {
  describe(`compileFastCheck(${name})`, () => {
    const fast = compileFastCheck(schema);

    it('compiles', () => {
      expect(fast).not.toBeNull();
      expect(fast?.(valid)).toBe(true);
      expect(schema.safeParse(valid).success).toBe(true);
    });

    it('answers as zod for every field and edge value', () => {
      let disagreements: string[] = [];
      let accepted = 0;
      for (const key of Object.keys(schema.shape)) {
        for (const value of catalogue()) {
          const row: Record<string, unknown> = { ...valid, [key]: value };
          if (value === undefined) delete row[key];
          const want = schema.safeParse(row).success;
          if (want) accepted++;
          if (fast?.(row) !== want)
            disagreements.push(`${key}=${JSON.stringify(value)?.slice(0, 40)}: zod ${want}`);
        }
      }
      disagreements = disagreements.slice(0, 10);
      expect(disagreements).toEqual([]);
      expect(accepted).toBeGreaterThan(100); // the catalogue hits both sides
    });

    it('refuses what is not an object, and ignores unknown keys as zod does', () => {
      for (const v of [null, undefined, 1, 'row', [valid], new Date()])
        expect(fast?.(v)).toBe(schema.safeParse(v).success);
      expect(fast?.({ ...valid, extra: 1 })).toBe(true);
    });
  });
}

describe('compileFastCheck', () => {
  it('gives no check for a schema it does not fully understand', () => {
    expect(compileFastCheck(z.object({ a: z.string().email() }))).toBeNull();
    expect(compileFastCheck(z.object({ a: z.string() }).refine(() => true))).toBeNull();
    expect(compileFastCheck(z.object({ a: z.number().refine((n) => n > 1) }))).toBeNull();
    expect(compileFastCheck(z.object({ a: z.coerce.number() }))).toBeNull();
    expect(compileFastCheck(z.object({ a: z.string() }).strict())).toBeNull();
    expect(compileFastCheck(z.object({ a: z.array(z.string()) }))).toBeNull();
    expect(compileFastCheck(z.string())).toBeNull();
  });
});
