import { ago, bucketName, instant, label, lag, money, refusalText, share, utcDays } from './format';

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

describe('overview formats', () => {
  it('writes shares, lags and bucket names', () => {
    expect(share(3, 7)).toBe('42.9%');
    expect(share(0, 0)).toBe('—');
    expect(lag(250)).toBe('250 ms');
    expect(lag(2000)).toBe('2 s');
    expect(lag(300_000)).toBe('5 min');
    expect(lag(null)).toBe('over 5 min');
    expect(bucketName('2026-11-26T09:30:00.000Z', 'minute', 'Africa/Nairobi')).toBe('09:30 UTC');
    // A Nairobi day starts at 21:00 UTC the evening before.
    expect(bucketName('2026-11-25T21:00:00.000Z', 'day', 'Africa/Nairobi')).toBe('2026-11-26');
  });
});

describe('utcDays', () => {
  it('turns picked days into the UTC instants the API filters by, the last day included', () => {
    expect(utcDays('2026-11-01', '2026-11-30')).toEqual({
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
    });
    expect(utcDays('', '2026-12-31')).toEqual({ to: '2027-01-01T00:00:00.000Z' });
    expect(utcDays('2026-02-28', '')).toEqual({ from: '2026-02-28T00:00:00.000Z' });
    expect(utcDays('', '')).toEqual({});
  });
});
