import { RunningSandbox } from '../support/sandbox';
import { GatewayCaller, startMerchantSandbox } from './gateway-http';

describe('sandbox gateway: lookups, cancellation and refund', () => {
  let sandbox: RunningSandbox;
  let gw: GatewayCaller;
  let ipnId: string;

  beforeAll(async () => {
    ({ sandbox, gw, ipnId } = await startMerchantSandbox('http://127.0.0.1:9/ipn'));
  });
  afterAll(() => sandbox.close());

  const create = async (
    overrides: Record<string, unknown> = {},
  ): Promise<{ id: string; ref: string }> => {
    const body = gw.order(ipnId, overrides);
    const res = await gw.post('/Transactions/SubmitOrderRequest', body);
    return { id: res.json.order_tracking_id, ref: body.id as string };
  };
  const status = (
    id: string,
  ): Promise<{ json: Record<string, unknown>; status: number; text: string }> =>
    gw.get(`/Transactions/GetTransactionStatus?orderTrackingId=${id}`);
  const requestRefund = (
    confirmationCode: string | null,
    amount: string,
    remarks = 'r',
  ): Promise<{ json: Record<string, unknown> }> =>
    gw.post('/Transactions/RefundRequest', {
      confirmation_code: confirmationCode,
      amount,
      username: 'ops',
      remarks,
    });

  it('tells pending from unknown only by the message', async () => {
    const { id } = await create();
    const pending = await status(id);
    expect(pending.status).toBe(200);
    expect(pending.json).toMatchObject({
      status_code: 0,
      payment_status_description: 'INVALID',
      payment_method: '',
      confirmation_code: '',
      payment_account: '',
      description: null,
      status: '500',
      error: {
        error_type: 'api_error',
        code: 'payment_details_not_found',
        message: 'Pending Payment',
      },
    });
    const unknown = await status('6f1b6a7e-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(200);
    expect(unknown.json.error).toMatchObject({
      code: 'payment_details_not_found',
      message: 'Payment details not found',
    });
  });

  it('answers an omitted parameter with a message-only 4xx', async () => {
    for (const path of [
      '/Transactions/GetTransactionStatus',
      '/Transactions/GetTransactionByMerchantReference',
      '/Transactions/QueryStatusByConfirmationCode',
    ]) {
      const res = await gw.get(path);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(Object.keys(res.json)).toEqual(['message']);
    }
  });

  it('gives a card payment every field of 2.8, 22 digits, EAT date and a null-field error object', async () => {
    const before = Date.now();
    const { id, ref } = await create({ amount: 250.5 });
    await sandbox.control.settle(id, 'completed', 'card');
    const record = (await status(id)).json;
    expect(record).toMatchObject({
      status_code: 1,
      payment_status_description: expect.any(String),
      confirmation_code: expect.stringMatching(/^\d{22}$/),
      payment_method: expect.any(String),
      payment_account: expect.any(String),
      amount: 250.5,
      currency: 'KES',
      merchant_reference: ref,
      order_tracking_id: id,
      description: expect.any(String),
      message: expect.any(String),
      call_back_url: expect.stringContaining(`OrderTrackingId=${id}`),
      account_number: null,
      payment_status_code: '',
      error: { error_type: null, code: null, message: null, call_back_url: null },
      status: '200',
    });
    const created = record.created_date as string;
    expect(created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?$/);
    const asEat = Date.parse(`${created}+03:00`);
    expect(Math.abs(asEat - before)).toBeLessThan(5000);
  });

  it('dates a paid order by its payment: created_date moves from the order to the payment', async () => {
    const { id } = await create();
    const pending = (await status(id)).json.created_date as string;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const paidFrom = Date.now();
    await sandbox.control.settle(id, 'completed', 'card');
    const paid = (await status(id)).json.created_date as string;
    const eat = (text: string) => Date.parse(`${text}+03:00`);
    expect(eat(paid) - eat(pending)).toBeGreaterThanOrEqual(1000);
    expect(Math.abs(eat(paid) - paidFrom)).toBeLessThan(1000);
  });

  it('answers the same payment with a different payment_method per lookup endpoint', async () => {
    const { id, ref } = await create();
    const settled = await sandbox.control.settle(id, 'completed', 'card');
    const byId = (await status(id)).json;
    const byRef = (
      await gw.get(`/Transactions/GetTransactionByMerchantReference?merchantReference=${ref}`)
    ).json;
    const byCode = (
      await gw.get(
        `/Transactions/QueryStatusByConfirmationCode?confirmationCode=${settled.confirmation_code}`,
      )
    ).json;
    expect(byRef.order_tracking_id).toBe(id);
    expect(byCode.order_tracking_id).toBe(id);
    expect(byRef.payment_method).not.toBe(byId.payment_method);
  });

  it('cancels a pending order once, never a completed one; a cancelled order cannot be paid', async () => {
    const { id } = await create();
    const cancel = await gw.post('/Transactions/CancelOrder', { order_tracking_id: id });
    expect(cancel.json).toEqual({ status: '200', message: expect.any(String) });
    const twice = await gw.post('/Transactions/CancelOrder', { order_tracking_id: id });
    expect(twice.json).toEqual({ status: '500', message: expect.any(String) });
    await expect(sandbox.control.settle(id, 'completed', 'card')).rejects.toThrow(/409/);
    const paid = await create();
    await sandbox.control.settle(paid.id, 'completed', 'card');
    expect(
      (await gw.post('/Transactions/CancelOrder', { order_tracking_id: paid.id })).json.status,
    ).toBe('500');
  });

  it('accepts one refund per confirmation code: partial allowed, a second of any amount refused', async () => {
    const { id } = await create({ amount: 100 });
    const { confirmation_code } = await sandbox.control.settle(id, 'completed', 'card');
    const refund = (amount: string) => requestRefund(confirmation_code, amount, 'damaged');
    const first = await refund('40.00');
    expect(first.json).toEqual({ status: '200', message: expect.any(String) });
    expect((await refund('60.00')).json).toEqual({ status: '500', message: expect.any(String) });
    expect((await refund('1.00')).json.status).toBe('500');
    expect((await status(id)).json.status_code).toBe(1);
  });

  it('refuses refunds above the paid amount and partial mobile-money refunds', async () => {
    const card = await create({ amount: 100 });
    const cardPaid = await sandbox.control.settle(card.id, 'completed', 'card');
    const tooMuch = await requestRefund(cardPaid.confirmation_code, '100.01');
    expect(tooMuch.json.status).toBe('500');
    const mobile = await create({ amount: 100 });
    const mobilePaid = await sandbox.control.settle(mobile.id, 'completed', 'mobile_money');
    const partial = await requestRefund(mobilePaid.confirmation_code, '50');
    expect(partial.json.status).toBe('500');
    const full = await requestRefund(mobilePaid.confirmation_code, '100.00');
    expect(full.json).toEqual({ status: '200', message: expect.any(String) });
  });

  it('reports a mobile-money payment with description null and a reversal with status_code 3', async () => {
    const { id } = await create();
    await sandbox.control.settle(id, 'completed', 'mobile_money');
    expect((await status(id)).json).toMatchObject({ status_code: 1, description: null });
    await sandbox.control.settle(id, 'reversed');
    expect((await status(id)).json.status_code).toBe(3);
  });
});
