/** Step 1: the orders a shop makes through the API, the templates the database grows from. */
import { call, waitUntil } from '../processes';
import { ADMIN, SHOP } from './settings';

export async function json(url: string, method = 'GET', headers = SHOP, body?: unknown) {
  const answer = await call(url, method, { headers, body });
  if (answer.status >= 400) throw new Error(`${method} ${url}: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body) as Record<string, unknown>;
}

export interface Made {
  references: string[];
  emails: string[];
  refunds: number;
}

/** Orders as a shop makes them: paid, declined and cancelled, hosted and push, some refunded. */
export async function makeOrders(api: string): Promise<Made> {
  const made: Made = { references: [], emails: [], refunds: 0 };
  const stamp = Date.now().toString(36);
  const pay = async (created: Record<string, unknown>, action: string) => {
    const page = new URL(String(created.redirect_url));
    const answer = await fetch(new URL('/pesapaliframe/PesapalIframe3/Pay', page.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ OrderTrackingId: String(created.order_tracking_id), action }),
      redirect: 'manual',
    });
    const back = answer.headers.get('location');
    if (back) await fetch(back, { redirect: 'manual' });
  };
  for (let i = 0; i < 40; i += 1) {
    const reference = `bench-${stamp}-${i}`;
    const email = `customer.${stamp}.${i}@example.com`;
    const customer = {
      email,
      phone: `+2547${String(10000000 + i).slice(-8)}`,
      first_name: 'Amina',
    };
    if (i % 4 === 3) {
      // Push: paid by the phone (last digit 8) or declined (last digit 1).
      const phone = i % 8 === 3 ? '+254712345671' : '+254712345678';
      await json(`${api}/v1/checkouts/mobile-money`, 'POST', SHOP, {
        amount: '250.00',
        currency: 'KES',
        description: 'Mobile top-up',
        reference,
        customer,
        phone,
        network: 'MPESA',
      });
    } else {
      const created = await json(`${api}/v1/checkouts`, 'POST', SHOP, {
        amount: `${1000 + i * 10}.00`,
        currency: i % 5 === 0 ? 'UGX' : 'KES',
        description: 'Two bags of coffee',
        reference,
        customer,
        return_url: 'https://shop.example/thank-you',
      });
      await pay(created, i % 6 === 1 ? 'fail' : 'card');
    }
    made.references.push(reference);
    made.emails.push(email);
  }
  // Refund some of the paid ones once they are paid.
  for (const reference of made.references.slice(0, 12)) {
    const order = await waitForFinal(api, reference);
    if (order.status !== 'completed') continue;
    const answer = await call(`${api}/v1/admin/orders/${reference}/refunds`, 'POST', {
      headers: ADMIN,
      body: { amount: order.amount, reason: 'returned' },
    });
    if (answer.status === 201) made.refunds += 1;
  }
  return made;
}

async function waitForFinal(api: string, reference: string): Promise<Record<string, string>> {
  let order: Record<string, string> = {};
  await waitUntil(`order ${reference} final`, async () => {
    order = (await json(`${api}/v1/orders/${reference}`)) as Record<string, string>;
    return order.status !== 'pending';
  });
  return order;
}
