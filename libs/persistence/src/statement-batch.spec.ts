import { StatementBatch } from './statement-batch';

/** A runner the test finishes statement by statement; it records every batch it was given. */
function recordingRunner(fail: (item: string) => boolean = () => false, code = '22001') {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  const run = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push(items);
      pending.push(() =>
        items.some(fail)
          ? reject(Object.assign(new Error(`bad item in ${items.join(',')}`), { code }))
          : resolve(items.map((item) => `answer ${item}`)),
      );
    });
  const finishNext = async () => {
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { run, batches, finishNext };
}

describe('StatementBatch', () => {
  it('sends an item alone at once when no statement is under way', async () => {
    const r = recordingRunner();
    const batch = new StatementBatch(r.run, { maxBatch: 10, maxParallel: 1 });

    const answer = batch.submit('a');
    expect(r.batches).toEqual([['a']]);
    await r.finishNext();

    await expect(answer).resolves.toBe('answer a');
  });

  it('puts the items asked for while a statement runs into the next one, each answered', async () => {
    const r = recordingRunner();
    const batch = new StatementBatch(r.run, { maxBatch: 10, maxParallel: 1 });

    const answers = ['a', 'b', 'c', 'd'].map((item) => batch.submit(item));
    expect(r.batches).toEqual([['a']]);
    await r.finishNext();
    expect(r.batches).toEqual([['a'], ['b', 'c', 'd']]);
    await r.finishNext();

    await expect(Promise.all(answers)).resolves.toEqual([
      'answer a',
      'answer b',
      'answer c',
      'answer d',
    ]);
  });

  it('keeps items of one key in separate statements and cuts batches at their size', async () => {
    const r = recordingRunner();
    const batch = new StatementBatch(r.run, {
      maxBatch: 2,
      maxParallel: 1,
      key: (item) => item.slice(0, 1),
    });

    const answers = ['x0', 'x1', 'x2', 'y1', 'z1'].map((item) => batch.submit(item));
    await r.finishNext();
    await r.finishNext();
    await r.finishNext();
    await r.finishNext();

    expect(r.batches).toEqual([['x0'], ['x1', 'y1'], ['x2', 'z1']]);
    await expect(Promise.all(answers)).resolves.toHaveLength(5);
  });

  it('tries a failed batch item by item, so only the bad item fails', async () => {
    const r = recordingRunner((item) => item === 'bad');
    const batch = new StatementBatch(r.run, { maxBatch: 10, maxParallel: 1 });

    const first = batch.submit('a');
    // Settled as they come (a rejection is not left unhandled while the test goes on).
    const rest = ['b', 'bad', 'c'].map((item) =>
      batch.submit(item).then(
        (answer) => answer,
        (error: Error) => `failed: ${error.message}`,
      ),
    );
    await r.finishNext(); // a
    await r.finishNext(); // b, bad, c together: fails
    await r.finishNext(); // b alone
    await r.finishNext(); // bad alone
    await r.finishNext(); // c alone

    await expect(first).resolves.toBe('answer a');
    await expect(Promise.all(rest)).resolves.toEqual([
      'answer b',
      'failed: bad item in bad',
      'answer c',
    ]);
    expect(r.batches.slice(1)).toEqual([['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
  });

  it('fails the whole batch at once when the statement never reached the server', async () => {
    const r = recordingRunner((item) => item === 'bad', 'ECONNREFUSED');
    const batch = new StatementBatch(r.run, { maxBatch: 10, maxParallel: 1 });

    const first = batch.submit('a');
    const rest = ['b', 'bad'].map((item) =>
      batch.submit(item).then(
        () => 'answered',
        (error: Error) => `failed: ${error.message}`,
      ),
    );
    await r.finishNext();
    await r.finishNext();

    await expect(first).resolves.toBe('answer a');
    await expect(Promise.all(rest)).resolves.toEqual([
      'failed: bad item in b,bad',
      'failed: bad item in b,bad',
    ]);
    expect(r.batches).toEqual([['a'], ['b', 'bad']]);
  });

  it('with a gather time, waits that long for company before sending, unless the batch is full', async () => {
    jest.useFakeTimers();
    try {
      const r = recordingRunner();
      const batch = new StatementBatch(r.run, { maxBatch: 3, maxParallel: 1, gatherMs: 5 });

      void batch.submit('a');
      void batch.submit('b');
      expect(r.batches).toEqual([]);
      jest.advanceTimersByTime(5);
      expect(r.batches).toEqual([['a', 'b']]);

      const other = new StatementBatch(r.run, { maxBatch: 3, maxParallel: 1, gatherMs: 5 });
      ['c', 'd', 'e'].forEach((item) => void other.submit(item));
      expect(r.batches).toEqual([
        ['a', 'b'],
        ['c', 'd', 'e'],
      ]);
    } finally {
      jest.useRealTimers();
    }
  });
});
