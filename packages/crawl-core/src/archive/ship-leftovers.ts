import type { Logger } from '@crawler/adapters/log';
import type { WarcShipper } from '@crawler/adapters/storage';
import { filesOfGoneWriters } from '@crawler/adapters/warc';

/** How often the agent looks again for files that writers on its folder left behind, ms. */
export const LEFTOVER_SWEEP_MS = 60_000;

/**
 * Ships the WARC files every earlier writer on this folder left unshipped — of any agent id, a
 * crash or a stop whose uploads did not finish — now and every {@link LEFTOVER_SWEEP_MS} while
 * the agent runs. A folder is left alone while a live writer holds it: each writer keeps a lock
 * file in its folder, touched every 5 s, and removes it at close; a folder counts as left behind
 * when its locks are gone, stale (untouched for 60 s) or name a process of this machine that is
 * no longer running (packages/adapters/src/warc/writer-lock.ts). So agents sharing a DATA_DIR never
 * ship each other's open files; two that find the same leftover both upload the same bytes.
 */
export async function shipLeftovers(
  shipper: WarcShipper,
  warcDir: string,
  log: Logger,
): Promise<void> {
  const files = await shipper.watchPending({
    everyMs: LEFTOVER_SWEEP_MS,
    filter: () => filesOfGoneWriters(warcDir),
    onQueued: (n) => log.info({ files: n }, 'shipping WARC files a stopped writer left'),
    onError: (err) => log.warn({ err }, 'looking for WARC files left behind failed'),
  });
  if (files > 0) log.info({ files }, 'shipping WARC files left by an earlier run');
}
