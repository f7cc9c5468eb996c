import { join } from 'node:path';
import { z } from 'zod';
import { LocalObjectStore } from './local-store';
import { S3ObjectStore } from './s3-store';
import { StorageError } from './storage-errors';
import type { ObjectStore, ObjectStoreOptions, ObjectStoreSettings } from './types';

const localSchema = z.strictObject({
  kind: z.literal('local'),
  dir: z.string().min(1),
});

const s3Schema = z
  .strictObject({
    kind: z.literal('s3'),
    endpoint: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
    bucket: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/, 'letters, digits, ".", "-" and "_" only'),
    region: z
      .string()
      .regex(/^[a-z0-9-]{1,64}$/, 'a region name like us-east-1')
      .default('us-east-1'),
    accessKeyId: z.string().min(1).optional(),
    secretAccessKey: z.string().min(1).optional(),
    forcePathStyle: z.boolean().default(false),
    maxAttempts: z.number().int().min(1).max(20).default(4),
    retryBaseDelayMs: z.number().int().min(0).max(60_000).default(200),
    listPageSize: z.number().int().min(1).max(1000).default(1000),
    partConcurrency: z.number().int().min(1).max(32).default(4),
  })
  .refine((o) => (o.accessKeyId === undefined) === (o.secretAccessKey === undefined), {
    message: 'give both accessKeyId and secretAccessKey, or neither',
    path: ['secretAccessKey'],
  });

const optionsSchema = z.discriminatedUnion('kind', [localSchema, s3Schema]);

/**
 * Opens an object store: a local folder (`kind: 'local'`) or an S3-compatible bucket
 * (`kind: 's3'`). Nothing is contacted yet; a missing bucket shows on first use as
 * STORAGE_NO_BUCKET. Bad options throw STORAGE_BAD_OPTIONS naming the option.
 */
export function openObjectStore(options: ObjectStoreOptions): ObjectStore {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    throw new StorageError(
      'STORAGE_BAD_OPTIONS',
      `object store ${path ? `option ${path}` : 'options'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const o = parsed.data;
  return o.kind === 'local' ? new LocalObjectStore(o.dir) : new S3ObjectStore(o);
}

/**
 * The store the settings ask for: S3 when `S3_BUCKET` is set, else the folder `${dataDir}/warc`
 * (where the agent's WarcWriter writes, so local uploads are no-ops). Empty strings count as
 * unset. With `S3_ENDPOINT` (MinIO, Ceph, GCS interop…) requests use path-style URLs, which
 * those services need; without it they go to AWS S3 with virtual-host URLs.
 */
export function objectStoreFromSettings(s: ObjectStoreSettings): ObjectStore {
  const set = (v: string | undefined) =>
    v === undefined || v.trim() === '' ? undefined : v.trim();
  const bucket = set(s.S3_BUCKET);
  if (bucket === undefined) return openObjectStore({ kind: 'local', dir: join(s.dataDir, 'warc') });
  const endpoint = set(s.S3_ENDPOINT);
  const region = set(s.S3_REGION);
  const accessKeyId = set(s.S3_ACCESS_KEY_ID);
  const secretAccessKey = set(s.S3_SECRET_ACCESS_KEY);
  return openObjectStore({
    kind: 's3',
    bucket,
    forcePathStyle: endpoint !== undefined,
    ...(endpoint !== undefined ? { endpoint } : {}),
    ...(region !== undefined ? { region } : {}),
    ...(accessKeyId !== undefined ? { accessKeyId } : {}),
    ...(secretAccessKey !== undefined ? { secretAccessKey } : {}),
  });
}
