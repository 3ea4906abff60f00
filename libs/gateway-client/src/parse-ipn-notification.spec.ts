import { ipnAcknowledgement, judgeIpn, readIpnFields } from './parse-ipn-notification';

const FIELDS = {
  OrderTrackingId: 'cb7fec53-1f1c-4bd8-9b1f-8d6a1f1c2b3a',
  OrderNotificationType: 'IPNCHANGE',
  OrderMerchantReference: '607821822479040391',
};

describe('reading a notification', () => {
  it('reads the query of a GET', () => {
    expect(readIpnFields(FIELDS, undefined)).toEqual({
      orderTrackingId: FIELDS.OrderTrackingId,
      merchantReference: FIELDS.OrderMerchantReference,
      notificationType: 'IPNCHANGE',
    });
  });

  it('reads a JSON text, a form text and a parsed object alike', () => {
    const expected = readIpnFields(FIELDS, undefined);
    expect(readIpnFields({}, JSON.stringify(FIELDS))).toEqual(expected);
    expect(readIpnFields({}, new URLSearchParams(FIELDS).toString())).toEqual(expected);
    expect(readIpnFields({}, FIELDS)).toEqual(expected);
  });

  it('ignores unparseable bodies and non-string values', () => {
    expect(readIpnFields({}, '{not json')).toEqual({
      orderTrackingId: null,
      merchantReference: null,
      notificationType: null,
    });
    expect(readIpnFields({}, { OrderTrackingId: { $ne: 1 } }).orderTrackingId).toBeNull();
  });
});

describe('judging a notification', () => {
  it('accepts IPNCHANGE and RECURRING', () => {
    expect(judgeIpn(readIpnFields(FIELDS, undefined)).kind).toBe('accept');
    const recurring = readIpnFields({ ...FIELDS, OrderNotificationType: 'RECURRING' }, undefined);
    expect(judgeIpn(recurring)).toMatchObject({ kind: 'accept', type: 'RECURRING' });
  });

  it('ignores the customer redirect marker and unknown types', () => {
    for (const type of ['CALLBACKURL', 'DROP TABLE']) {
      const fields = readIpnFields({ ...FIELDS, OrderNotificationType: type }, undefined);
      expect(judgeIpn(fields).kind).toBe('ignore');
    }
  });

  it('rejects missing fields, naming them', () => {
    expect(judgeIpn(readIpnFields({ OrderTrackingId: 'x' }, undefined))).toEqual({
      kind: 'reject',
      reason: 'missing OrderMerchantReference, OrderNotificationType',
    });
  });

  it('acknowledges in the camelCase shape with a numeric status', () => {
    expect(ipnAcknowledgement(readIpnFields(FIELDS, undefined), 200)).toEqual({
      orderNotificationType: 'IPNCHANGE',
      orderTrackingId: FIELDS.OrderTrackingId,
      orderMerchantReference: FIELDS.OrderMerchantReference,
      status: 200,
    });
  });
});
