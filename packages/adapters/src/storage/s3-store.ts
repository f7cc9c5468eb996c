import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { validateKey, validatePrefix, validateRange } from './object-key';
import { withRetry, type RetryPolicy } from './retry';
import { classifyS3Error } from './s3-errors';
import { StorageError } from './storage-errors';
import type { ObjectEntry, ObjectStore } from './types';

const MIB = 1024 * 1024;
/** Size of a multipart part, and the largest file sent in one PutObject. */
export const PART_BYTES = 8 * MIB;
/** S3's limit on parts per upload; files past 80 GiB get parts larger than 8 MiB. */
const MAX_PARTS = 10_000;
const MAX_RETRY_DELAY_MS = 10_000;

/** Validated S3 options (defaults applied). */
export interface ResolvedS3Options {
  endpoint?: string | undefined;
  bucket: string;
  region: string;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  forcePathStyle: boolean;
  maxAttempts: number;
  retryBaseDelayMs: number;
  listPageSize: number;
  partConcurrency: number;
}

/**
 * Objects in an S3-compatible bucket, through `@aws-sdk/client-s3` commands.
 *
 * - Uploads: files up to 8 MiB go in one PutObject; larger ones in a multipart upload of 8 MiB
 *   parts (bigger past 80 GiB, to stay within 10,000 parts), `partConcurrency` at a time, each
 *   read from the file when sent, so memory stays at parts × 8 MiB. A failed upload is aborted
 *   so no parts linger (billed) in the bucket. Each body carries a Content-MD5 the service
 *   checks; the SDK's newer CRC checksums are off (`WHEN_REQUIRED`) because many S3-compatible
 *   services reject their aws-chunked encoding.
 * - Retries are ours, not the SDK's (its `maxAttempts` is 1): each request, including reading
 *   a GetObject body, is retried on 5xx, 429, throttling codes and network errors with capped
 *   exponential backoff and full jitter, then fails as STORAGE_UNAVAILABLE.
 * - Without keys, credentials come from the SDK's default chain (environment, profile,
 *   instance role).
 */
export class S3ObjectStore implements ObjectStore {
  private readonly client: S3Client;
  private readonly retry: RetryPolicy;

  constructor(private readonly opts: ResolvedS3Options) {
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint !== undefined ? { endpoint: opts.endpoint } : {}),
      forcePathStyle: opts.forcePathStyle,
      ...(opts.accessKeyId !== undefined && opts.secretAccessKey !== undefined
        ? {
            credentials: {
              accessKeyId: opts.accessKeyId,
              secretAccessKey: opts.secretAccessKey,
            },
          }
        : {}),
      maxAttempts: 1,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      followRegionRedirects: true,
      requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
    });
    this.retry = {
      maxAttempts: opts.maxAttempts,
      baseDelayMs: opts.retryBaseDelayMs,
      maxDelayMs: MAX_RETRY_DELAY_MS,
    };
  }

  describe(): string {
    const where = `s3://${this.opts.bucket}/`;
    if (this.opts.endpoint === undefined) return where;
    const endpoint = new URL(this.opts.endpoint);
    endpoint.username = '';
    endpoint.password = '';
    return `${where} at ${endpoint.origin}`;
  }

  async putFile(key: string, path: string): Promise<void> {
    validateKey(key);
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (err) {
      throw new StorageError('STORAGE_BAD_SOURCE', `cannot read ${path}: ${message(err)}`, {
        cause: err,
      });
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) {
        throw new StorageError('STORAGE_BAD_SOURCE', `${path} is not a regular file`);
      }
      if (info.size <= PART_BYTES) await this.putWhole(key, handle, info.size, path);
      else await this.putMultipart(key, handle, info.size, path);
    } finally {
      await handle.close();
    }
  }

  async readRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    validateKey(key);
    validateRange(offset, length);
    const last = offset + length - 1;
    return this.send(`read ${key} bytes ${offset}-${last}`, async () => {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.opts.bucket,
          Key: key,
          Range: `bytes=${offset}-${last}`,
        }),
      );
      if (!res.Body) throw new StorageError('STORAGE_FAILED', `read ${key}: reply without a body`);
      const body = await res.Body.transformToByteArray();
      // Lenient with services that send more than asked: the whole object when they ignore
      // Range (200, no Content-Range), or a longer range from the right start (s3rver reads
      // `bytes=0-0` as `bytes=0-`).
      const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.ContentRange ?? '');
      if (res.ContentRange !== undefined && Number(range?.[1]) !== offset) {
        throw new StorageError(
          'STORAGE_FAILED',
          `read ${key}: asked for bytes ${offset}–${last}, got ${res.ContentRange}`,
        );
      }
      const start = res.ContentRange === undefined ? offset : 0;
      const bytes = body.subarray(start, start + length);
      if (bytes.byteLength !== length) {
        const size = range?.[2] ?? String(body.byteLength);
        throw new StorageError(
          'STORAGE_BAD_RANGE',
          `${key}: bytes ${offset}–${last} pass the end of the object (${size} bytes)`,
        );
      }
      return bytes;
    });
  }

  async *list(prefix: string): AsyncIterable<ObjectEntry> {
    validatePrefix(prefix);
    let token: string | undefined;
    do {
      const continuation = token;
      const page = await this.send(`list ${JSON.stringify(prefix)}`, () =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.opts.bucket,
            ...(prefix !== '' ? { Prefix: prefix } : {}),
            MaxKeys: this.opts.listPageSize,
            ...(continuation !== undefined ? { ContinuationToken: continuation } : {}),
          }),
        ),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key !== undefined) yield { key: object.Key, size: object.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      if (page.IsTruncated && token === undefined) {
        throw new StorageError('STORAGE_FAILED', `list ${prefix}: truncated page without a token`);
      }
    } while (token !== undefined);
  }

  async exists(key: string): Promise<boolean> {
    validateKey(key);
    try {
      await this.send(`stat ${key}`, () =>
        this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: key })),
      );
      return true;
    } catch (err) {
      if (err instanceof StorageError && err.code === 'STORAGE_NOT_FOUND') return false;
      throw err;
    }
  }

  /** One request with retries; failures become StorageErrors. */
  private send<T>(what: string, op: () => Promise<T>): Promise<T> {
    return withRetry(this.retry, (err) => classifyS3Error(err, what), op);
  }

  private async putWhole(key: string, handle: FileHandle, size: number, path: string) {
    const body = await readExactly(handle, 0, size, path);
    await this.send(`put ${key}`, () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.opts.bucket,
          Key: key,
          Body: body,
          ContentLength: size,
          ContentMD5: md5(body),
        }),
      ),
    );
  }

  private async putMultipart(key: string, handle: FileHandle, size: number, path: string) {
    const { bucket } = this.opts;
    const partBytes = Math.max(PART_BYTES, Math.ceil(size / MAX_PARTS / MIB) * MIB);
    const count = Math.ceil(size / partBytes);
    const created = await this.send(`start upload of ${key}`, () =>
      this.client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key })),
    );
    const uploadId = created.UploadId;
    if (uploadId === undefined) {
      throw new StorageError('STORAGE_FAILED', `start upload of ${key}: no upload id in the reply`);
    }
    const parts: CompletedPart[] = [];
    try {
      await runPool(count, this.opts.partConcurrency, async (index) => {
        const start = index * partBytes;
        const body = await readExactly(handle, start, Math.min(partBytes, size - start), path);
        const partNumber = index + 1;
        const res = await this.send(`upload part ${partNumber}/${count} of ${key}`, () =>
          this.client.send(
            new UploadPartCommand({
              Bucket: bucket,
              Key: key,
              UploadId: uploadId,
              PartNumber: partNumber,
              Body: body,
              ContentLength: body.byteLength,
              ContentMD5: md5(body),
            }),
          ),
        );
        if (res.ETag === undefined) {
          throw new StorageError('STORAGE_FAILED', `part ${partNumber} of ${key}: no ETag`);
        }
        parts[index] = { PartNumber: partNumber, ETag: res.ETag };
      });
      if ((await handle.stat()).size !== size) {
        throw new StorageError('STORAGE_FAILED', `${path} changed size while it was uploaded`);
      }
      await this.send(`complete upload of ${key}`, () =>
        this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts },
          }),
        ),
      );
    } catch (err) {
      // Best effort: parts of an upload never aborted stay (and are billed) until a lifecycle
      // rule removes them. The upload's own error is the one worth reporting.
      await this.send(`abort upload of ${key}`, () =>
        this.client.send(
          new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }),
        ),
      ).catch(() => undefined);
      throw err;
    }
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function md5(bytes: Uint8Array): string {
  return createHash('md5').update(bytes).digest('base64');
}

/** Reads `length` bytes at `position`; a file that ends early changed since its size was taken. */
async function readExactly(
  handle: FileHandle,
  position: number,
  length: number,
  path: string,
): Promise<Buffer> {
  const out = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(out, filled, length - filled, position + filled);
    if (bytesRead === 0) {
      throw new StorageError('STORAGE_FAILED', `${path} shrank while it was uploaded`);
    }
    filled += bytesRead;
  }
  return out;
}

/**
 * Runs `task(0 … count − 1)` with at most `concurrency` in flight. After the first failure no
 * new task starts; once the running ones settle, that failure is thrown.
 */
async function runPool(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const state: { failure?: { error: unknown } } = {};
  const worker = async () => {
    while (state.failure === undefined && next < count) {
      const index = next++;
      try {
        await task(index);
      } catch (error) {
        state.failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, concurrency) }, worker));
  if (state.failure !== undefined) throw state.failure.error;
}
