/**
 * The load: RATE customers a second check out, spend a moment on the hosted page and pay (or
 * decline); every REFUND_EVERY-th paid order is refunded in full by an admin. Each retries a call
 * that got no clear answer, as a patient person would.
 */
import { randomBytes } from 'node:crypto';
import { Answer, call, sleep } from '../processes';
import { DECLINE_EVERY, PATIENCE_MS, RATE, REFUND_EVERY, say, tally } from './campaign';

/** One customer's checkout, as the campaign saw it. */
export interface Purchase {
  reference: string;
  outcome: 'completed' | 'failed';
  refund: boolean;
  trackingId: string | null;
  paid: boolean;
  gaveUp: string | null;
  refundAnswer: { status: number; refundStatus: string | null; code: string | null } | null;
}

type Headers = Record<string, string>;

export class Customers {
  readonly purchases: Purchase[] = [];
  readonly checkoutAnswers = new Map<string, number>();
  readonly refundAnswers = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private loading = true;
  private load: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: string,
    private readonly sandbox: string,
    private readonly shop: Headers,
    private readonly admin: Headers,
  ) {}

  /** An admin's full refund of an order (every order here is 1500.00 KES). */
  requestRefund(reference: string, reason: string): Promise<Answer> {
    return call(`${this.api}/v1/admin/orders/${reference}/refunds`, 'POST', {
      headers: this.admin,
      body: { amount: '1500.00', reason },
      timeoutMs: 30_000,
    });
  }

  /** Retries until `done` accepts an answer (the same request: safe to repeat by design). */
  async patiently(
    what: string,
    attempt: () => Promise<Answer>,
    done: (answer: Answer) => boolean,
    tallyInto: Map<string, number>,
  ): Promise<Answer | null> {
    const deadline = Date.now() + PATIENCE_MS;
    for (let round = 1; Date.now() < deadline; round += 1) {
      try {
        const answer = await attempt();
        tally(tallyInto, String(answer.status));
        if (done(answer)) return answer;
      } catch {
        tally(tallyInto, 'no answer');
      }
      await sleep(Math.min(250 * round, 3000));
    }
    say(`gave up: ${what}`);
    return null;
  }

  /** RATE customers a second until `stopArriving`. */
  startArriving(): void {
    this.load = (async () => {
      for (let index = 1; this.loading; index += 1) {
        const run = this.customer(index).catch((error: unknown) => {
          say(`customer ${index} stopped: ${String(error)}`);
        });
        this.running.add(run);
        void run.finally(() => this.running.delete(run));
        await sleep(1000 / RATE);
      }
    })();
  }

  async stopArriving(): Promise<void> {
    this.loading = false;
    await this.load;
  }

  /** Until every customer who arrived is done with their checkout and refund. */
  async finished(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private async customer(index: number): Promise<void> {
    const { api, sandbox, shop } = this;
    const outcome = index % DECLINE_EVERY === 0 ? 'failed' : 'completed';
    const purchase: Purchase = {
      reference: `chaos-${index}-${randomBytes(3).toString('hex')}`,
      outcome,
      refund: outcome === 'completed' && index % REFUND_EVERY === 0,
      trackingId: null,
      paid: false,
      gaveUp: null,
      refundAnswer: null,
    };
    this.purchases.push(purchase);
    const created = await this.patiently(
      `checkout ${purchase.reference}`,
      () =>
        call(`${api}/v1/checkouts`, 'POST', {
          headers: { ...shop, 'idempotency-key': purchase.reference },
          body: {
            amount: '1500.00',
            currency: 'KES',
            description: 'chaos campaign',
            reference: purchase.reference,
            customer: { email: `customer${index}@example.com`, first_name: 'Chaos' },
          },
          timeoutMs: 30_000,
        }),
      (answer) => answer.status < 500 && answer.status !== 409 && answer.status !== 429,
      this.checkoutAnswers,
    );
    if (!created || (created.status !== 201 && created.status !== 200)) {
      purchase.gaveUp = created
        ? `checkout refused: ${created.status} ${created.body}`
        : 'checkout';
      return;
    }
    purchase.trackingId = (
      JSON.parse(created.body) as { order_tracking_id: string }
    ).order_tracking_id;
    // The customer spends a moment on the hosted page, then pays (or declines): the gateway
    // notifies, twice, whatever state the service is in by then.
    await sleep(500 + Math.random() * 5000);
    const settled = await call(
      `${sandbox}/__sandbox/orders/${purchase.trackingId}/outcome`,
      'POST',
      { body: { outcome: purchase.outcome, method: 'card' } },
    );
    if (settled.status !== 200)
      throw new Error(`sandbox outcome: ${settled.status} ${settled.body}`);
    purchase.paid = true;
    if (!purchase.refund) return;

    // An admin refunds it once the shop sees it paid.
    const seen = await this.patiently(
      `order ${purchase.reference} completed`,
      () =>
        call(`${api}/v1/orders/${purchase.reference}`, 'GET', {
          headers: shop,
          timeoutMs: 30_000,
        }),
      (answer) => answer.status === 200 && JSON.parse(answer.body).status === 'completed',
      new Map(),
    );
    if (!seen) {
      purchase.gaveUp = 'refund: never saw the order completed';
      return;
    }
    const refunded = await this.patiently(
      `refund ${purchase.reference}`,
      () => this.requestRefund(purchase.reference, 'chaos campaign'),
      (answer) => answer.status < 500 && answer.status !== 429,
      this.refundAnswers,
    );
    if (!refunded || (refunded.status !== 201 && refunded.status !== 409)) {
      purchase.gaveUp = refunded ? `refund refused: ${refunded.status} ${refunded.body}` : 'refund';
      return;
    }
    const body = JSON.parse(refunded.body) as {
      refund?: { status: string };
      error?: { code: string; refund?: { status: string } };
    };
    purchase.refundAnswer = {
      status: refunded.status,
      refundStatus: body.refund?.status ?? body.error?.refund?.status ?? null,
      code: body.error?.code ?? null,
    };
  }
}
