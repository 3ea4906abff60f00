import { ago, instant, label, money, refusalText } from './format';

describe('console formatting', () => {
  it('writes amounts exactly, grouped, with the currency, and a dash for none', () => {
    expect(money('1500.00', 'KES')).toBe('KES 1,500.00');
    expect(money('1234567.5', 'UGX')).toBe('UGX 1,234,567.50');
    expect(money('-50.00', 'KES')).toBe('-KES 50.00');
    expect(money('0.10', null)).toBe('0.10');
    expect(money(null, 'KES')).toBe('—');
  });

  it('writes instants in UTC to the second, and says how long ago', () => {
    expect(instant('2026-11-26T09:30:05.123Z')).toBe('2026-11-26 09:30:05 UTC');
    expect(instant(null)).toBe('—');
    const now = new Date('2026-11-26T12:00:00Z');
    expect(ago('2026-11-26T11:59:30Z', now)).toBe('just now');
    expect(ago('2026-11-26T11:55:00Z', now)).toBe('5 min ago');
    expect(ago('2026-11-26T09:00:00Z', now)).toBe('3 h ago');
    expect(ago('2026-11-24T12:00:00Z', now)).toBe('2 d ago');
  });

  it('names statuses in words and refusals by their code', () => {
    expect(label('mobile_money')).toBe('mobile money');
    expect(label(null)).toBe('—');
    expect(refusalText({ code: 'order_paid', message: 'refund it instead' })).toBe(
      'order_paid: refund it instead',
    );
  });
});
