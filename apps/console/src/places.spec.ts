import { placeOf } from './places';

describe('the console places in the URL hash', () => {
  it('opens the overview without a hash or with one naming no page', () => {
    expect(placeOf('')).toEqual({ page: 'overview' });
    expect(placeOf('#/nowhere')).toEqual({ page: 'overview' });
    expect(placeOf('#/finance')).toEqual({ page: 'finance' });
    expect(placeOf('#/access')).toEqual({ page: 'access' });
    expect(placeOf('#/unmatched-payments')).toEqual({ page: 'unmatched-payments' });
  });

  it('opens an order by its reference, decoded, and the orders for a malformed one', () => {
    expect(placeOf('#/orders/ORD%2F42')).toEqual({ page: 'order', reference: 'ORD/42' });
    expect(placeOf('#/orders/%E0%A4%A')).toEqual({ page: 'orders' });
    expect(placeOf('#/orders')).toEqual({ page: 'orders' });
  });
});
