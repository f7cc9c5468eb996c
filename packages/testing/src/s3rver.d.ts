/**
 * The part of `s3rver` (an S3-protocol server in JavaScript, a dev dependency without its own
 * types) that the storage tests use.
 */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  /** Options of the server; see the s3rver README. */
  export interface S3rverOptions {
    /** Address to listen on; the tests use `127.0.0.1`. */
    address?: string;
    /** Port; 0 picks a free one. */
    port?: number;
    /** Folder holding buckets and objects. */
    directory: string;
    /** Suppresses request logs. */
    silent?: boolean;
    /** Deletes every bucket when the server closes. */
    resetOnClose?: boolean;
    /** Accepts any well-formed signature. */
    allowMismatchedSignatures?: boolean;
    /** Treats `bucket.host` names as virtual-host buckets. */
    vhostBuckets?: boolean;
  }

  /** An S3-protocol server on a local folder. Credentials: `S3RVER` / `S3RVER`. */
  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Starts listening; resolves to the bound address. */
    run(): Promise<AddressInfo>;
    /** Stops listening. */
    close(): Promise<void>;
  }
}
