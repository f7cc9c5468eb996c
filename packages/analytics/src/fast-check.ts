import type { z } from 'zod';

type Check = (value: unknown) => boolean;

/** What this reads of a zod schema's (or check's) definition. */
interface Def {
  type?: string;
  check?: string;
  coerce?: boolean;
  shape?: Record<string, { _zod: { def: Def } }>;
  catchall?: unknown;
  checks?: { _zod: { def: Def } }[];
  innerType?: { _zod: { def: Def } };
  entries?: Record<string, unknown>;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
}

/**
 * The predicate "`schema.safeParse(value)` would succeed", compiled from the schema's definition
 * into plain checks, or null when the schema uses anything outside the small set understood here
 * (objects of strings, numbers, booleans, dates, enums and defaults, with length, bound, integer
 * and regex checks). It answers as zod would, for about a tenth of the CPU, and builds no output:
 * a caller whose row passes uses the row itself (defaults are `undefined`, unknown keys stay).
 * Rows it refuses are still parsed by zod, for the error. `fast-check.test.ts` holds it to zod.
 */
export function compileFastCheck(schema: z.ZodType): Check | null {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  // Only zod's default object (unknown keys stripped), with no checks of its own.
  if (def.type !== 'object' || def.catchall !== undefined || def.checks?.length || !def.shape)
    return null;
  const keys: string[] = [];
  const checks: Check[] = [];
  for (const [key, field] of Object.entries(def.shape)) {
    const check = compileField(field._zod.def);
    if (!check) return null;
    keys.push(key);
    checks.push(check);
  }
  const n = keys.length;
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const row = value as Record<string, unknown>;
    for (let k = 0; k < n; k++) if (!checks[k]!(row[keys[k]!])) return false;
    return true;
  };
}

function compileField(def: Def): Check | null {
  if (def.coerce) return null;
  const own = (def.checks ?? []).map((c) => c._zod.def);
  switch (def.type) {
    case 'default': {
      const inner = def.innerType && compileField(def.innerType._zod.def);
      return inner ? (v) => v === undefined || inner(v) : null;
    }
    case 'boolean':
      return own.length === 0 ? (v) => typeof v === 'boolean' : null;
    case 'enum': {
      if (own.length > 0 || !def.entries) return null;
      const values = new Set(Object.values(def.entries));
      return (v) => values.has(v);
    }
    case 'date':
      return own.length === 0 ? (v) => v instanceof Date && !Number.isNaN(v.getTime()) : null;
    case 'string': {
      let min = 0;
      let max = Infinity;
      const patterns: RegExp[] = [];
      for (const c of own) {
        if (c.check === 'min_length') min = Math.max(min, c.minimum ?? 0);
        else if (c.check === 'max_length') max = Math.min(max, c.maximum ?? Infinity);
        else if (c.check === 'length_equals' && c.length !== undefined) {
          min = Math.max(min, c.length);
          max = Math.min(max, c.length);
        } else if (c.check === 'string_format' && c.format === 'regex' && c.pattern)
          patterns.push(c.pattern);
        else return null;
      }
      const pattern = patterns.length === 1 ? patterns[0] : undefined;
      return (v) => {
        if (typeof v !== 'string' || v.length < min || v.length > max) return false;
        if (pattern) {
          pattern.lastIndex = 0; // as zod does, for a /g or /y pattern
          return pattern.test(v);
        }
        for (const p of patterns) {
          p.lastIndex = 0;
          if (!p.test(v)) return false;
        }
        return true;
      };
    }
    case 'number': {
      let safeInt = false;
      let lo = -Infinity;
      let loInclusive = true;
      let hi = Infinity;
      let hiInclusive = true;
      for (const c of own) {
        if (c.check === 'number_format' && c.format === 'safeint') safeInt = true;
        else if (c.check === 'greater_than' && c.value !== undefined) {
          if (c.value > lo || (c.value === lo && !c.inclusive)) {
            lo = c.value;
            loInclusive = c.inclusive ?? false;
          }
        } else if (c.check === 'less_than' && c.value !== undefined) {
          if (c.value < hi || (c.value === hi && !c.inclusive)) {
            hi = c.value;
            hiInclusive = c.inclusive ?? false;
          }
        } else return null;
      }
      return (v) =>
        typeof v === 'number' &&
        Number.isFinite(v) &&
        (!safeInt || Number.isSafeInteger(v)) &&
        (loInclusive ? v >= lo : v > lo) &&
        (hiInclusive ? v <= hi : v < hi);
    }
    default:
      return null;
  }
}
