/**
 * Runs async tasks one at a time, in call order. Appends to a WARC file go through one, so
 * offsets of concurrent writers never interleave. A failed task does not stop later ones; the
 * caller of that task gets its rejection.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
