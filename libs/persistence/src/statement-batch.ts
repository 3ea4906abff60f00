/** Runs one statement for a batch of items and answers each item, in the batch's order. */
export type BatchRunner<Item, Answer> = (items: Item[]) => Promise<Answer[]>;

export interface StatementBatchOptions<Item> {
  /** Items in one statement at most. */
  maxBatch: number;
  /** Statements of this kind under way at once; items made meanwhile wait for the next. */
  maxParallel: number;
  /**
   * Items that must not share a statement (two changes of one order row): the later one waits
   * for the next statement.
   */
  key?: (item: Item) => string;
  /**
   * With nothing under way, wait this long for company before sending (0: send at once). Buys
   * fewer commits at a steady rate for that much latency.
   */
  gatherMs?: number;
  /** Told the size of each batch sent (a metric). */
  observe?: (items: number) => void;
}

/**
 * The gather of statements no request waits on (a verification's read of its inbox rows, an
 * outcome's write): at a steady few hundred notifications a second, 5 ms more before an order is
 * applied puts two to three times as many in each statement, so a notification costs fewer
 * commits and less PostgreSQL time. A request that applies an outcome (a customer's return, an
 * operator's sync) waits as long.
 */
export const UNHURRIED_GATHER_MS = 5;

interface Waiting<Item, Answer> {
  item: Item;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

/**
 * Shares one statement (one round trip, one commit) among the items asked for while an earlier
 * statement of the same kind is under way: with nothing under way an item goes alone at once
 * (or after the gather time, if one is set), so it costs no latency when idle and cuts the
 * statements per item as the load rises. A statement the server refuses for a batch is tried
 * again item by item, so one bad item (or a deadlock between two batches) fails only itself; one
 * that never reached it (the connection failed) fails the whole batch at once.
 */
export class StatementBatch<Item, Answer> {
  private waiting: Waiting<Item, Answer>[] = [];
  private running = 0;
  private gathering: NodeJS.Timeout | undefined;

  constructor(
    private readonly run: BatchRunner<Item, Answer>,
    private readonly options: StatementBatchOptions<Item>,
  ) {}

  submit(item: Item): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.running >= this.options.maxParallel) return;
      const gatherMs = this.options.gatherMs ?? 0;
      if (gatherMs <= 0 || this.waiting.length >= this.options.maxBatch) {
        void this.next();
      } else {
        this.gathering ??= setTimeout(() => {
          this.gathering = undefined;
          // A statement may have started meanwhile: its end sends what waits.
          if (this.running < this.options.maxParallel) void this.next();
        }, gatherMs);
      }
    });
  }

  private async next(): Promise<void> {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    const batch = this.take();
    if (batch.length === 0) return;
    this.running += 1;
    try {
      await this.settle(batch);
    } finally {
      this.running -= 1;
      if (this.waiting.length > 0) void this.next();
    }
  }

  /** The oldest waiting items, up to the batch size, none sharing a key with another. */
  private take(): Waiting<Item, Answer>[] {
    const { maxBatch, key } = this.options;
    if (!key) return this.waiting.splice(0, maxBatch);
    const keys = new Set<string>();
    const batch: Waiting<Item, Answer>[] = [];
    const left: Waiting<Item, Answer>[] = [];
    for (const entry of this.waiting) {
      const k = key(entry.item);
      if (batch.length < maxBatch && !keys.has(k)) {
        keys.add(k);
        batch.push(entry);
      } else {
        left.push(entry);
      }
    }
    this.waiting = left;
    return batch;
  }

  private async settle(batch: Waiting<Item, Answer>[]): Promise<void> {
    this.options.observe?.(batch.length);
    try {
      const answers = await this.run(batch.map((entry) => entry.item));
      batch.forEach((entry, i) => entry.resolve(answers[i]));
    } catch (error) {
      if (batch.length === 1 || !rejectedByServer(error)) {
        for (const entry of batch) entry.reject(error as Error);
        return;
      }
      for (const entry of batch) {
        await this.run([entry.item]).then(
          ([answer]) => entry.resolve(answer),
          (alone: Error) => entry.reject(alone),
        );
      }
    }
  }
}

/**
 * The server refused the statement itself (a SQLSTATE outside the connection, resource and
 * shutdown classes): its items may fare otherwise alone.
 */
function rejectedByServer(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|53|57)/.test(code);
}
