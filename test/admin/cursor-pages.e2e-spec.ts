import { DataSource } from 'typeorm';
import { SeedRows } from '../support/seed-rows';
import { SeededApi, startSeededApi } from '../support/seeded-api';

interface Page {
  items?: { id: string }[];
  data?: { id: string }[];
  next_cursor: string | null;
}

/**
 * Every admin list pages by cursor: read to the end while rows keep arriving, each row that was
 * there when the reading began appears exactly once, in order; a cursor the API did not give for
 * this list and these filters is a 400 naming `cursor`. Each list is isolated from other suites'
 * rows by a filter only its seeded rows match (a currency, an event type, a date window).
 */
describe('admin lists page by cursor (api + Postgres)', () => {
  let dataSource: DataSource;
  let seed: SeedRows;
  let get: SeededApi['get'];
  let api: SeededApi | undefined;

  beforeAll(async () => {
    api = await startSeededApi();
    ({ dataSource, seed, get } = api);
  }, 60_000);
  afterAll(() => api?.close());

  /** Reads every page of `path`, calling `between` after each one; the ids in answer order. */
  async function readAll(path: string, between: () => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages += 1) {
      const separator = path.includes('?') ? '&' : '?';
      const response = await get(
        cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path,
      );
      expect(response.status).toBe(200);
      const page = response.body as Page;
      const rows = (page.items ?? page.data ?? []) as { id?: string; order?: { id: string } }[];
      seen.push(...rows.map((row) => (row.id ?? row.order?.id) as string));
      cursor = page.next_cursor;
      if (!cursor) return seen;
      await between();
    }
    throw new Error('more than 100 pages');
  }

  /** Sets the same instant on rows, so that pages must break the tie by id. */
  async function sameInstant(table: string, column: string, ids: string[]): Promise<void> {
    await dataSource.query(
      `UPDATE ${table} SET ${column} = '2020-03-01T10:00:00.123456Z' WHERE id = ANY($1)`,
      [ids],
    );
  }

  it('orders: no row repeated or missed while new orders arrive, ties broken by id', async () => {
    const before: string[] = [];
    for (let i = 0; i < 23; i += 1) {
      before.push((await seed.settledOrder({ currency: 'XOF', ageDays: i % 5 })).id);
    }
    await sameInstant('orders', 'created_at', before.slice(0, 9));
    const arrived: string[] = [];
    const seen = await readAll('/v1/admin/orders?currency=XOF&limit=4', async () => {
      arrived.push((await seed.settledOrder({ currency: 'XOF' })).id);
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => before.includes(id)).sort()).toEqual([...before].sort());
    expect(seen.every((id) => before.includes(id) || arrived.includes(id))).toBe(true);
    const order = (await dataSource.query(
      `SELECT id FROM orders WHERE id = ANY($1) ORDER BY created_at DESC, id DESC`,
      [seen],
    )) as { id: string }[];
    expect(seen).toEqual(order.map((row) => row.id));
  });

  it('refunds, notifications and merchant events page the same way', async () => {
    const refunds: string[] = [];
    for (let i = 0; i < 11; i += 1) {
      const order = await seed.settledOrder({ currency: 'XPF', withRefund: true, ageDays: i });
      const [refund] = (await dataSource.query('SELECT id FROM refunds WHERE order_id = $1', [
        order.id,
      ])) as { id: string }[];
      refunds.push(refund.id);
    }
    await sameInstant('refunds', 'created_at', refunds.slice(0, 5));
    const seenRefunds = await readAll('/v1/admin/refunds?currency=XPF&limit=3', async () => {
      await seed.settledOrder({ currency: 'XPF', withRefund: true });
    });
    expect(new Set(seenRefunds).size).toBe(seenRefunds.length);
    expect(seenRefunds.filter((id) => refunds.includes(id)).sort()).toEqual([...refunds].sort());

    // Notifications in a window of their own, long ago (received_at 2020-03-01).
    const notifications: string[] = [];
    for (let i = 0; i < 12; i += 1) notifications.push((await seed.notification('ignored', 0)).id);
    await sameInstant('ipn_notifications', 'received_at', notifications);
    const window = 'from=2020-03-01T00:00:00Z&to=2020-03-02T00:00:00Z';
    const seenNotifications = await readAll(
      `/v1/admin/notifications?status=ignored&${window}&limit=5`,
      async () => {
        await seed.notification('ignored', 0);
      },
    );
    expect([...seenNotifications].sort()).toEqual([...notifications].sort());

    // Merchant events of an order only this test writes.
    const order = await seed.settledOrder();
    const events: string[] = [];
    for (let i = 0; i < 9; i += 1) {
      events.push((await seed.merchantEvent({ ageDays: i, relayed: true, orderId: order.id })).id);
    }
    await sameInstant('outbox_events', 'created_at', events.slice(0, 4));
    const seenEvents = await readAll(
      `/v1/admin/events?order=${order.reference}&limit=2`,
      async () => {
        await seed.merchantEvent({ ageDays: 0, relayed: true, orderId: order.id });
      },
    );
    expect(new Set(seenEvents).size).toBe(seenEvents.length);
    expect(seenEvents.filter((id) => events.includes(id)).sort()).toEqual([...events].sort());
  });

  it('stuck orders page oldest first without repeating one', async () => {
    const flagged: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const order = await seed.settledOrder({ ageDays: 200 + i });
      flagged.push(order.id);
    }
    await dataSource.query(
      `UPDATE orders SET needs_review = true, review_reason = 'seeded' WHERE id = ANY($1)`,
      [flagged],
    );
    const seen = await readAll('/v1/admin/orders/stuck?limit=3', async () => undefined);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(flagged));
    const order = (await dataSource.query(
      `SELECT id FROM orders WHERE id = ANY($1) ORDER BY created_at, id`,
      [seen],
    )) as { id: string }[];
    expect(seen).toEqual(order.map((row) => row.id));
  });

  it('counts per status stop at the cap', async () => {
    // Ten days old, outside any reconciliation window another suite runs meanwhile, and removed
    // afterwards: these rows have no timeline.
    const inserted = (await dataSource.query(
      `INSERT INTO orders (merchant_reference, kind, status, submission_status, amount, currency,
                           description, version, created_at, updated_at)
       SELECT 'cap-' || g || '-' || md5(random()::text), 'hosted', 'completed', 'submitted',
              10.00, 'XAF', 'seeded', 1, now() - interval '10 days', now() - interval '10 days'
         FROM generate_series(1, 1003) AS g
       RETURNING id`,
    )) as { id: string }[];
    try {
      const page = await get('/v1/admin/orders?currency=XAF&limit=1');
      expect(page.status).toBe(200);
      expect(page.body.count_cap).toBe(1000);
      expect(page.body.counts).toMatchObject({ completed: 1000, pending: 0, failed: 0 });
      expect(page.body.next_cursor).toEqual(expect.any(String));
    } finally {
      await dataSource.query('DELETE FROM orders WHERE id = ANY($1)', [inserted.map((r) => r.id)]);
    }
  });

  it('finds an order by an earlier attempt and by its email in any case', async () => {
    const order = await seed.settledOrder({ currency: 'XCD' });
    const search = async (q: string) =>
      (
        (await get(`/v1/admin/orders?q=${encodeURIComponent(q)}`)).body.items as {
          id: string;
        }[]
      ).map((o) => o.id);
    expect(await search(`${order.reference}-a1`)).toEqual([order.id]);
    expect(await search(`${order.reference.toUpperCase()}@EXAMPLE.COM`)).toEqual([order.id]);
  });

  describe('a cursor that is not one of this list is refused, naming cursor', () => {
    let good: string;
    beforeAll(async () => {
      for (let i = 0; i < 3; i += 1) await seed.settledOrder({ currency: 'XDR' });
      good = (await get('/v1/admin/orders?currency=XDR&limit=1')).body.next_cursor as string;
      expect(good).toEqual(expect.any(String));
    });

    const refused = async (path: string) => {
      const response = await get(path);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
      expect(response.body.error.errors.map((e: { field: string }) => e.field)).toEqual(['cursor']);
      return response.body.error.message as string;
    };

    it('malformed, tampered, too long', async () => {
      await refused('/v1/admin/orders?currency=XDR&cursor=not-a-cursor');
      const [payload, checksum] = good.split('.');
      const edited = Buffer.from(
        Buffer.from(payload, 'base64url')
          .toString()
          .replace(/"t":"\d/, '"t":"1'),
      ).toString('base64url');
      expect(await refused(`/v1/admin/orders?currency=XDR&cursor=${edited}.${checksum}`)).toMatch(
        /altered/,
      );
      await refused(`/v1/admin/orders?cursor=${'a'.repeat(600)}`);
    });

    it('from another list, or for other filters', async () => {
      expect(await refused(`/v1/admin/refunds?currency=XDR&cursor=${good}`)).toMatch(
        /another list/,
      );
      expect(await refused(`/v1/admin/orders?currency=KES&cursor=${good}`)).toMatch(
        /other filters/,
      );
      await refused(`/v1/admin/notifications?cursor=${good}`);
      await refused(`/v1/admin/events?cursor=${good}`);
      await refused(`/v1/admin/orders/stuck?cursor=${good}`);
    });

    it('limits keep their bounds and offset is gone', async () => {
      for (const limit of ['0', '201', 'x']) {
        expect((await get(`/v1/admin/orders?limit=${limit}`)).status).toBe(400);
      }
      expect((await get('/v1/admin/orders?offset=10')).status).toBe(400);
      expect((await get('/v1/admin/dead-letters?offset=10001')).status).toBe(400);
    });
  });
});
