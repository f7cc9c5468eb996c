import type { z } from 'zod';
import { parseClickhouseDateTime } from './encode-rows';

type Decode = (value: unknown) => unknown;

/** What this reads of a field's zod definition. */
interface FieldDef {
  type?: string;
  innerType?: { _zod: { def: FieldDef } };
}

/**
 * A reader of rows as ClickHouse's JSON output gives them, for the fields of `schema`: a
 * DateTime64 (`2026-11-30 12:00:00.123`, UTC) becomes a Date, a number (64-bit ones come as
 * strings) a number, a Bool a boolean, a string or enum a string; arrays stay as they come.
 * Only the schema's fields are read. Built once per schema, so a table's read and its row schema
 * cannot drift apart field by field.
 */
export function rowDecoder<S extends z.ZodRawShape>(
  schema: z.ZodObject<S>,
): (raw: Record<string, unknown>) => z.output<z.ZodObject<S>> {
  const fields = Object.entries(schema.shape).map(
    ([key, field]) =>
      [key, decoderOf((field as unknown as { _zod: { def: FieldDef } })._zod.def)] as const,
  );
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const [key, decode] of fields) row[key] = decode(raw[key]);
    return row as z.output<z.ZodObject<S>>;
  };
}

function decoderOf(def: FieldDef): Decode {
  switch (def.type) {
    case 'default':
    case 'optional':
      return def.innerType ? decoderOf(def.innerType._zod.def) : (v) => v;
    case 'date':
      return (v) => parseClickhouseDateTime(String(v));
    case 'number':
      return (v) => Number(v);
    case 'boolean':
      return (v) => v === true || v === 1 || v === 'true';
    case 'string':
    case 'enum':
      return (v) => String(v);
    default:
      return (v) => v;
  }
}
