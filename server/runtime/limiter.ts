/**
 * At most `concurrency` of the functions given to it run at once; the others queue in order. Nine lines, so written
 * here rather than a dependency (p-limit is ESM-only with its own queue package, for the same behaviour).
 */
export function limiter(concurrency: number) {
  let running = 0;
  const queue: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= concurrency) await new Promise<void>((resolve) => queue.push(resolve));
    running += 1;
    try {
      return await work();
    } finally {
      running -= 1;
      queue.shift()?.();
    }
  };
}
