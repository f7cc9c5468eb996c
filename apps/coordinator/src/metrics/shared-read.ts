/**
 * One read shared by every metric of a scrape: prom-client collects the metrics of a registry
 * concurrently, so the first `collect()` starts the read and the others reuse its promise while
 * it is younger than `maxAgeMs` (default 1,000 ms). A failed read is reported to `onError` and
 * yields null: the metrics it feeds go without samples for that scrape instead of failing the
 * whole `/metrics` answer.
 */
export function sharedRead<T>(
  read: () => Promise<T>,
  onError: (err: unknown) => void,
  maxAgeMs = 1000,
): () => Promise<T | null> {
  let last: { at: number; value: Promise<T | null> } | null = null;
  return () => {
    const now = Date.now();
    if (last && now - last.at < maxAgeMs) return last.value;
    const value = read().catch((err: unknown) => {
      onError(err);
      return null;
    });
    last = { at: now, value };
    return value;
  };
}
