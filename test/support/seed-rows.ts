import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

/**
 * Rows written straight into the tables, for suites about reads and retention that need history
 * (old orders, settled notifications, delivered events) faster than the API could make it. Each
 * helper answers the ids it wrote; `ageDays` backdates the row.
 */
export class SeedRows {
  constructor(private readonly dataSource: DataSource) {}

  private async one<T>(sql: string, parameters: unknown[]): Promise<T> {
    const rows = (await this.dataSource.query(sql, parameters)) as T[];
    return rows[0];
  }

  /**
   * A paid (or otherwise settled) order with its timeline, its merchant event, an earlier attempt
   * and, if asked, a refund already reversed: consistent, so a reconciliation run by another suite
   * on the same database finds nothing to report, and final, so no worker follows it up.
   */
  async settledOrder(
    options: { ageDays?: number; status?: string; currency?: string; withRefund?: boolean } = {},
  ): Promise<{ id: string; reference: string }> {
    const reference = `seed-${randomBytes(6).toString('hex')}`;
    const ageDays = options.ageDays ?? 0;
    const { id } = await this.one<{ id: string }>(
      `INSERT INTO orders (merchant_reference, order_tracking_id, kind, status, submission_status,
                           amount, currency, description, customer_email, version,
                           paid_amount, paid_currency, paid_at, created_at, updated_at)
       VALUES ($1, gen_random_uuid()::text, 'hosted', $2, 'submitted', 100.00, $3, 'seeded',
               $1::varchar || '@example.com', 3, 100.00, $3, now() - make_interval(days => $4),
               now() - make_interval(days => $4), now() - make_interval(days => $4))
       RETURNING id`,
      [reference, options.status ?? 'completed', options.currency ?? 'KES', ageDays],
    );
    await this.dataSource.query(
      `INSERT INTO order_events (order_id, type, from_status, to_status, source, created_at)
       VALUES ($1, 'created', NULL, 'pending', 'api', now() - make_interval(days => $2)),
              ($1, 'status_changed', 'pending', $3, 'ipn', now() - make_interval(days => $2))`,
      [id, ageDays, options.status ?? 'completed'],
    );
    await this.dataSource.query(
      `INSERT INTO outbox_events (order_id, type, payload, created_at, relayed_at)
       VALUES ($1, 'order.' || $3::varchar, '{}'::jsonb, now() - make_interval(days => $2),
               now() - make_interval(days => $2))`,
      [id, ageDays, options.status ?? 'completed'],
    );
    await this.dataSource.query(
      `INSERT INTO payment_attempts (order_id, number, kind, gateway_reference, status,
                                     started_at, replaced_at)
       VALUES ($1, 1, 'hosted', $2::varchar || '-a1', 'failed', now() - make_interval(days => $3),
               now() - make_interval(days => $3))`,
      [id, reference, ageDays],
    );
    if (options.withRefund) {
      await this.dataSource.query(
        `INSERT INTO refunds (order_id, confirmation_code, amount, currency, is_partial, reason,
                              requested_by, admin_key_name, status, created_at, updated_at)
         VALUES ($1, $2, 100.00, $3, false, 'seeded', 'seed', 'seed', 'reversed',
                 now() - make_interval(days => $4), now() - make_interval(days => $4))`,
        [id, `rc-${reference}`, options.currency ?? 'KES', ageDays],
      );
      await this.dataSource.query(
        `INSERT INTO outbox_events (order_id, type, payload, created_at, relayed_at)
         VALUES ($1, 'refund.reversed', '{}'::jsonb, now() - make_interval(days => $2),
                 now() - make_interval(days => $2))`,
        [id, ageDays],
      );
    }
    return { id, reference };
  }

  async notification(status: string, ageDays: number, orderId: string | null = null) {
    return this.one<{ id: string }>(
      `INSERT INTO ipn_notifications (order_tracking_id, merchant_reference, http_method, status,
                                      order_id, received_at, processed_at)
       VALUES (gen_random_uuid()::text, 'seed', 'POST', $1, $2,
               now() - make_interval(days => $3), now() - make_interval(days => $3))
       RETURNING id`,
      [status, orderId, ageDays],
    );
  }

  async webhookEndpoint(): Promise<{ id: string }> {
    return this.one(
      `INSERT INTO webhook_endpoints (url, secret) VALUES ($1, 'whsec_c2VlZA==') RETURNING id`,
      [`https://shop.example/hooks/${randomBytes(4).toString('hex')}`],
    );
  }

  /**
   * A merchant event, relayed or not, with one message to `endpointId` in `messageState` (none
   * when null) and `deliveries` attempts.
   */
  async merchantEvent(options: {
    ageDays: number;
    relayed: boolean;
    endpointId?: string;
    messageState?: 'pending' | 'delivered' | 'failed' | null;
    deliveries?: number;
    orderId?: string | null;
  }): Promise<{ id: string }> {
    const event = await this.one<{ id: string }>(
      `INSERT INTO outbox_events (order_id, type, payload, created_at, relayed_at, delivered_at)
       VALUES ($1, 'order.completed', '{}'::jsonb, now() - make_interval(days => $2),
               CASE WHEN $3 THEN now() - make_interval(days => $2) END,
               CASE WHEN $4 THEN now() - make_interval(days => $2) END)
       RETURNING id`,
      [
        options.orderId ?? null,
        options.ageDays,
        options.relayed,
        options.messageState === 'delivered',
      ],
    );
    if (options.endpointId && options.messageState) {
      await this.dataSource.query(
        `INSERT INTO webhook_messages (event_id, endpoint_id, order_id, event_created_at, state,
                                       created_at)
         VALUES ($1, $2, $3, now() - make_interval(days => $4), $5,
                 now() - make_interval(days => $4))`,
        [
          event.id,
          options.endpointId,
          options.orderId ?? null,
          options.ageDays,
          options.messageState,
        ],
      );
    }
    for (let attempt = 1; attempt <= (options.deliveries ?? 0); attempt += 1) {
      await this.dataSource.query(
        `INSERT INTO webhook_deliveries (event_id, endpoint_id, attempt, url, response_status,
                                         duration_ms, created_at)
         VALUES ($1, $2, $3, 'https://shop.example/hooks', 500, 12,
                 now() - make_interval(days => $4))`,
        [event.id, options.endpointId ?? null, attempt, options.ageDays],
      );
    }
    return event;
  }

  async idempotencyKey(expiresInHours: number): Promise<{ key: string }> {
    const key = `seed-${randomBytes(6).toString('hex')}`;
    await this.dataSource.query(
      `INSERT INTO idempotency_keys (scope, key, request_hash, expires_at)
       VALUES ('seed', $1, 'h', now() + make_interval(hours => $2))`,
      [key, expiresInHours],
    );
    return { key };
  }

  async rateLimitWindow(endsInSeconds: number): Promise<{ key: string }> {
    const key = `seed:${randomBytes(6).toString('hex')}`;
    await this.dataSource.query(
      `INSERT INTO rate_limit_windows (key, hits, window_ends)
       VALUES ($1, 1, now() + make_interval(secs => $2))`,
      [key, endsInSeconds],
    );
    return { key };
  }

  async lookupReservation(orderId: string, endsInSeconds: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO lookup_reservations (order_id, reserved_until)
       VALUES ($1, now() + make_interval(secs => $2))`,
      [orderId, endsInSeconds],
    );
  }

  /**
   * An order as finance sees it, at given instants: `paidAt` (a payment), `failedAt`,
   * `cancelledAt`, `reversedAt`; its status follows the latest, as the worker would have left it by
   * now (an order that failed and was never paid has expired). Its rows are dated then, created
   * and last changed, so no poll, sweep or reconciliation window of this run includes it.
   */
  async moneyOrder(options: {
    paidAt?: string;
    failedAt?: string;
    cancelledAt?: string;
    reversedAt?: string;
    currency?: string;
    amount?: string;
    description?: string;
    phone?: string | null;
    email?: string | null;
    paymentMethod?: string | null;
    paymentAccount?: string | null;
    confirmationCode?: string | null;
    attemptNumber?: number;
    failureReason?: string | null;
    kind?: 'hosted' | 'mobile_money';
  }): Promise<{ id: string; reference: string; trackingId: string }> {
    const reference = `fin-${randomBytes(6).toString('hex')}`;
    const status = options.reversedAt
      ? 'reversed'
      : options.paidAt
        ? 'completed'
        : options.cancelledAt
          ? 'cancelled'
          : 'expired';
    const instants = [options.paidAt, options.failedAt, options.cancelledAt, options.reversedAt]
      .filter((at): at is string => at !== undefined)
      .sort();
    if (instants.length === 0) throw new Error('moneyOrder needs at least one instant');
    return this.one(
      `INSERT INTO orders (merchant_reference, order_tracking_id, kind, status, submission_status,
                           amount, currency, description, customer_email, customer_phone,
                           payment_method, payment_account, confirmation_code, attempt_number,
                           paid_amount, paid_currency, paid_at, failed_at, cancelled_at,
                           reversed_at, expired_at, created_at, updated_at, version,
                           failure_reason)
       VALUES ($1, gen_random_uuid()::text, $19, $2::varchar, 'submitted', $3, $4, $5, $6, $7,
               $8, $9, $10, $11, CASE WHEN $12::timestamptz IS NULL THEN NULL ELSE $3::numeric END,
               CASE WHEN $12::timestamptz IS NULL THEN NULL ELSE $4::varchar END, $12, $13, $14,
               $15, CASE WHEN $2::varchar = 'expired' THEN $17::timestamptz END,
               $16::timestamptz - interval '1 minute', $17, 2, $18)
       RETURNING id, merchant_reference AS reference, order_tracking_id AS "trackingId"`,
      [
        reference,
        status,
        options.amount ?? '100.00',
        options.currency ?? 'KES',
        options.description ?? 'finance seed',
        options.email === undefined ? `${reference}@example.com` : options.email,
        options.phone === undefined ? null : options.phone,
        options.paymentMethod === undefined ? 'Visa' : options.paymentMethod,
        options.paymentAccount === undefined ? '444444xxxxxx4444' : options.paymentAccount,
        options.confirmationCode === undefined
          ? options.paidAt
            ? `CC${randomBytes(5).toString('hex').toUpperCase()}`
            : null
          : options.confirmationCode,
        options.attemptNumber ?? 1,
        options.paidAt ?? null,
        options.failedAt ?? null,
        options.cancelledAt ?? null,
        options.reversedAt ?? null,
        instants[0],
        instants[instants.length - 1],
        options.failureReason ?? null,
        options.kind ?? 'hosted',
      ],
    );
  }

  /** A notification received at `receivedAt`, verified `lagMs` later (or still open: null). */
  async notificationAt(receivedAt: string, lagMs: number | null): Promise<{ id: string }> {
    return this.one(
      `INSERT INTO ipn_notifications (order_tracking_id, merchant_reference, http_method, status,
                                      received_at, processed_at)
       VALUES (gen_random_uuid()::text, 'seed', 'POST',
               CASE WHEN $2::int IS NULL THEN 'queued' ELSE 'applied' END, $1::timestamptz,
               $1::timestamptz + make_interval(secs => $2::int / 1000.0))
       RETURNING id`,
      [receivedAt, lagMs],
    );
  }

  /** A webhook attempt made at `at`, answered with `status` (null: no answer). */
  async webhookAttemptAt(at: string, status: number | null): Promise<void> {
    const event = await this.one<{ id: string }>(
      `INSERT INTO outbox_events (type, payload, created_at, relayed_at)
       VALUES ('order.completed', '{}'::jsonb, $1, $1) RETURNING id`,
      [at],
    );
    await this.dataSource.query(
      `INSERT INTO webhook_deliveries (event_id, attempt, url, response_status, duration_ms,
                                       created_at)
       VALUES ($1, 1, 'https://shop.example/hooks', $2, 12, $3)`,
      [event.id, status, at],
    );
  }

  /**
   * A refund of `orderId`'s payment in `status`, accepted (and reversed) at the instants given. One
   * still awaiting its reversal (accepted, unknown) has its order's next look scheduled far ahead:
   * a refund of years ago that no worker of this run should follow up.
   */
  async moneyRefund(
    orderId: string,
    options: {
      status: 'requested' | 'accepted' | 'reversed' | 'rejected' | 'unknown';
      amount: string;
      currency?: string;
      reason?: string;
      acceptedAt?: string | null;
      reversedAt?: string | null;
    },
  ): Promise<{ id: string }> {
    const refund = await this.one<{ id: string }>(
      `INSERT INTO refunds (order_id, confirmation_code, amount, currency, is_partial, reason,
                            requested_by, admin_key_name, status, accepted_at, reversed_at,
                            created_at, updated_at)
       SELECT o.id, COALESCE(o.confirmation_code, 'none'), $2, $3, $2::numeric < o.amount, $4,
              'finance', 'seed', $5, $6, $7, COALESCE($6, $7, o.updated_at),
              COALESCE($7, $6, o.updated_at)
         FROM orders o WHERE o.id = $1
       RETURNING id`,
      [
        orderId,
        options.amount,
        options.currency ?? 'KES',
        options.reason ?? 'customer asked',
        options.status,
        options.acceptedAt ?? null,
        options.reversedAt ?? null,
      ],
    );
    if (options.status === 'accepted' || options.status === 'unknown') {
      await this.dataSource.query(
        `UPDATE orders SET next_poll_at = '2100-01-01T00:00:00Z' WHERE id = $1`,
        [orderId],
      );
    }
    return refund;
  }

  /** An earlier attempt of `orderId` that paid too (a double payment), refunded if asked. */
  async paidEarlierAttempt(
    orderId: string,
    options: { paidAt: string; amount: string; refundAcceptedAt?: string },
  ): Promise<{ id: string; confirmationCode: string; trackingId: string }> {
    const code = `CA${randomBytes(5).toString('hex').toUpperCase()}`;
    return this.one(
      `INSERT INTO payment_attempts (order_id, number, kind, gateway_reference, order_tracking_id,
                                     status, confirmation_code, paid_amount, paid_at, started_at,
                                     replaced_at, refund_status, refund_requested_at)
       VALUES ($1, 1, 'hosted', $2, gen_random_uuid()::text, 'completed', $2, $3, $4, $4, $4,
               CASE WHEN $5::timestamptz IS NULL THEN NULL ELSE 'accepted' END, $5)
       RETURNING id, confirmation_code AS "confirmationCode", order_tracking_id AS "trackingId"`,
      [orderId, code, options.amount, options.paidAt, options.refundAcceptedAt ?? null],
    );
  }
}
