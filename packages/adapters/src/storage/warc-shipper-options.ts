import { z } from 'zod';
import { parseOrThrow } from '@crawler/domain/errors';
import { StorageError } from './storage-errors';
import type { ObjectStore } from './types';

/** Options of `WarcShipper`. */
export interface WarcShipperOptions {
  /** Where closed WARC files go, under their own key. */
  store: ObjectStore;
  /** The WarcWriter's `dir`: a file's key is its path relative to this folder. */
  dir: string;
  /**
   * Keep each local file after its upload is verified (a `.shipped` marker beside it records
   * the upload). With false the file is removed and only its marker stays. Default true.
   */
  keepLocal?: boolean;
  /** Wait before the first retry of a failed upload, in ms; doubles per failure. Default 1000. */
  retryBaseDelayMs?: number;
  /** Longest wait between retries of one file, in ms. Default 300000 (5 min). */
  maxRetryDelayMs?: number;
  /** Called after each file is shipped (for logs and metrics). Must not throw. */
  onShipped?: (event: ShippedEvent) => void;
  /** Called after each failed try; the file stays queued unless `retryInMs` is null. */
  onShipFailed?: (event: ShipFailedEvent) => void;
}

/** A file that reached the store. */
export interface ShippedEvent {
  key: string;
  /** Size of the file, in bytes. */
  bytes: number;
  /** Tries it took, the successful one included. */
  attempts: number;
  /** The store is a local store whose object already is this file: nothing was copied or marked. */
  inPlace: boolean;
}

/** A failed try to ship a file. */
export interface ShipFailedEvent {
  key: string;
  /** Failed tries of this file so far. */
  attempts: number;
  /** Usually a StorageError; branch on its `code`. */
  error: unknown;
  /** Wait before the next try, in ms; null when the file is given up (it no longer exists). */
  retryInMs: number | null;
}

const optionsSchema = z.strictObject({
  store: z.custom<ObjectStore>(
    (v) => typeof v === 'object' && v !== null,
    'expected an ObjectStore',
  ),
  dir: z.string().min(1),
  keepLocal: z.boolean().default(true),
  retryBaseDelayMs: z.number().int().min(1).max(3_600_000).default(1000),
  maxRetryDelayMs: z.number().int().min(1).max(86_400_000).default(300_000),
  onShipped: z.custom<(e: ShippedEvent) => void>((v) => typeof v === 'function').optional(),
  onShipFailed: z.custom<(e: ShipFailedEvent) => void>((v) => typeof v === 'function').optional(),
});
/** Options with defaults applied. */
export type ResolvedShipperOptions = z.output<typeof optionsSchema>;

/** Validates and completes the options; throws STORAGE_BAD_OPTIONS naming the bad one. */
export function resolveShipperOptions(options: WarcShipperOptions): ResolvedShipperOptions {
  return parseOrThrow(
    optionsSchema,
    options,
    (problem) => new StorageError('STORAGE_BAD_OPTIONS', `WarcShipper option ${problem}`),
  );
}
