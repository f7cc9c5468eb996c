/** One object found by {@link ObjectStore.list}. */
export interface ObjectEntry {
  /** The object's key, e.g. `crawl/2026-11-30/agent-1/00000.warc.gz`. */
  key: string;
  /** Size in bytes. */
  size: number;
}

/**
 * Where WARC files live once written: a local folder by default, an S3-compatible bucket when
 * configured. Keys are `/`-separated relative paths (see `validateKey`); the same key means
 * the same object on every store, so a CDX row (key, offset, length) reads back anywhere.
 * Every failure is a `StorageError` with a stable code.
 */
export interface ObjectStore {
  /**
   * Uploads a local file under `key`, replacing any object there. Memory stays bounded whatever
   * the size (S3: one PutObject up to 8 MiB, else a multipart upload in 8 MiB parts). The object
   * appears whole or not at all. The file must not change while it is uploaded.
   */
  putFile(key: string, path: string): Promise<void>;
  /**
   * Reads `length` bytes at `offset` of an object (a CDX lookup of one WARC record). The range
   * must lie inside the object: a short object is STORAGE_BAD_RANGE, never a short read.
   */
  readRange(key: string, offset: number, length: number): Promise<Uint8Array>;
  /**
   * Lists the objects whose key starts with `prefix` (a string match: `crawl/2026-11` matches
   * `crawl/2026-11-30/…`; `''` lists everything), paginated internally, in ascending key order.
   */
  list(prefix: string): AsyncIterable<ObjectEntry>;
  /** Whether an object has this key (a "folder" that only holds other keys is not one). */
  exists(key: string): Promise<boolean>;
  /** Human-readable location, e.g. `file:///data/warc` or `s3://bucket/`; never credentials. */
  describe(): string;
}

/** Options of the local-folder store. */
export interface LocalStoreOptions {
  kind: 'local';
  /** Root folder; an object's file is `${dir}/${key}`. Created on the first upload. */
  dir: string;
}

/** Options of the S3-compatible store (AWS S3, MinIO, Ceph, GCS interoperability, …). */
export interface S3StoreOptions {
  kind: 's3';
  /** Service URL, e.g. `http://127.0.0.1:9000`; default AWS S3 of `region`. */
  endpoint?: string;
  bucket: string;
  /** Default `us-east-1`. */
  region?: string;
  /** Both keys or neither; neither uses the AWS SDK's default credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style URLs (`endpoint/bucket/key`); MinIO and most non-AWS services need them. Default false. */
  forcePathStyle?: boolean;
  /** Tries per request, counting the first (5xx, throttling and network errors retry). Default 4. */
  maxAttempts?: number;
  /** First retry delay cap in ms; doubles per retry (full jitter), at most 10 s. Default 200. */
  retryBaseDelayMs?: number;
  /** Keys per ListObjectsV2 page, 1–1000. Default 1000. */
  listPageSize?: number;
  /** Parts of one multipart upload in flight at once (memory: 8 MiB each). Default 4. */
  partConcurrency?: number;
}

/** Options of `openObjectStore`. */
export type ObjectStoreOptions = LocalStoreOptions | S3StoreOptions;

/**
 * Environment-style settings for `objectStoreFromSettings`: the S3 variables (empty counts as
 * unset) and the data folder of the local default.
 */
export interface ObjectStoreSettings {
  /** `DATA_DIR`; the local store's root is `${dataDir}/warc`. */
  dataDir: string;
  S3_ENDPOINT?: string;
  S3_BUCKET?: string;
  S3_REGION?: string;
  S3_ACCESS_KEY_ID?: string;
  S3_SECRET_ACCESS_KEY?: string;
}
