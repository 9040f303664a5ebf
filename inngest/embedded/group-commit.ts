import { retryOnConflict } from "./state";

/**
 * Group commit for the runner's hottest writes (checkpoints, run completions): while one statement is in flight,
 * the items that arrive wait and then go together in the next one, so under load the runner makes fewer, larger
 * statements (on this machine a statement's round trip, not its size, is what costs). Each caller still waits for
 * its own item to be written, so what a write guarantees does not change; with nothing in flight an item is
 * written at once, without waiting for others.
 */
export class GroupCommit<Item, Result> {
  private queue: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  private writing = false;

  /** `write` gets the items in arrival order and returns one result per item, in the same order. */
  constructor(private readonly write: (items: Item[]) => Promise<Result[]>) {}

  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue;
        this.queue = [];
        try {
          const results = await retryOnConflict(() => this.write(batch.map((entry) => entry.item)));
          batch.forEach((entry, index) => entry.resolve(results[index]!));
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
