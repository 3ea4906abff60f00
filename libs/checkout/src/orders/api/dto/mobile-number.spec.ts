import { billingPhone, mobileMoneyCountry, readMobileNumber } from './mobile-number';

/** [typed, what push is sent] for numbers people type; null where it must be refused. */
const KENYA: [string, string | null][] = [
  ['0712345678', '254712345678'],
  ['0712 345 678', '254712345678'],
  ['0712-345-678', '254712345678'],
  ['(0712) 345678', '254712345678'],
  ['+254712345678', '254712345678'],
  ['+254 712 345 678', '254712345678'],
  ['+254-712-345-678', '254712345678'],
  ['254712345678', '254712345678'],
  ['254 712 345678', '254712345678'],
  ['712345678', '254712345678'],
  ['0110 123 456', '254110123456'],
  ['0111123456', '254111123456'],
  ['+254 110 123456', '254110123456'],
  ['0100 123 456', '254100123456'],
  ['0733 123 456', '254733123456'],
  ['  0722123456  ', '254722123456'],
  ['+254 (0) 712 345 678', '254712345678'],
  ['0712.345.678', '254712345678'],
  ['00254712345678', '254712345678'],
  ['0757 123 456', '254757123456'],
  ['0202 123 456', null], // a Nairobi landline
  ['020 212 3456', null],
  ['071234567', null], // a digit short
  ['07123456789', null], // a digit long
  ['+256 772 123 456', null], // Ugandan
  ['+255 754 123 456', null], // Tanzanian
  ['0712 ABC 678', null],
  ['', null],
  ['+', null],
  ['12', null],
];
const UGANDA: [string, string | null][] = [
  ['0772123456', '256772123456'],
  ['0772 123 456', '256772123456'],
  ['+256 772 123 456', '256772123456'],
  ['256772123456', '256772123456'],
  ['0701 234 567', '256701234567'],
  ['0752-123-456', '256752123456'],
  ['(0782) 123456', '256782123456'],
  ['+256-701-234-567', '256701234567'],
  ['772123456', '256772123456'],
  ['0392 123 456', null], // fixed line
  ['0414 123 456', null], // Kampala landline
  ['0772 12345', null],
  ['+254 712 345 678', null],
  ['0772 12 34 567', null],
  ['phone', null],
  ['0772.123.456', '256772123456'],
  ['  0772123456 ', '256772123456'],
  ['00256772123456', '256772123456'],
  ['+256 (0) 772 123 456', '256772123456'],
  ['0703 123 456', '256703123456'],
  ['0740 123 456', '256740123456'],
  ['0762 123 456', '256762123456'],
  ['0789-123-456', '256789123456'],
  ['256 701 234567', '256701234567'],
  ['+255 754 123 456', null],
  ['0772 123 45a', null],
  ['077212345', null],
  ['07721234567', null],
  ['+', null],
  ['', null],
];
const TANZANIA: [string, string | null][] = [
  ['0754123456', '255754123456'],
  ['0754 123 456', '255754123456'],
  ['+255 754 123 456', '255754123456'],
  ['255754123456', '255754123456'],
  ['0651 234 567', '255651234567'],
  ['0712-345-678', '255712345678'],
  ['(0765) 123456', '255765123456'],
  ['+255-784-123-456', '255784123456'],
  ['754123456', '255754123456'],
  ['0222 123 456', null], // Dar es Salaam landline
  ['0754 12345', null],
  ['+256 772 123 456', null],
  ['0754 123 4567', null],
  ['', null],
  ['+255', null],
  ['0754.123.456', '255754123456'],
  ['  0754123456 ', '255754123456'],
  ['00255754123456', '255754123456'],
  ['+255 (0) 754 123 456', '255754123456'],
  ['0713 123 456', '255713123456'],
  ['0685 123 456', '255685123456'],
  ['0621 123 456', '255621123456'],
  ['0744-123-456', '255744123456'],
  ['255 654 123456', '255654123456'],
  ['+254 712 345 678', null],
  ['0754 12x 456', null],
  ['075412345', null],
  ['07541234567', null],
  ['12', null],
  ['tz', null],
];

describe('mobile numbers as people type them', () => {
  for (const [country, cases] of [
    ['KE', KENYA],
    ['UG', UGANDA],
    ['TZ', TANZANIA],
  ] as const) {
    it.each(cases)(`${country}: %j`, (typed, sent) => {
      const reading = readMobileNumber(typed, country);
      if (sent === null) {
        expect(reading).toMatchObject({ ok: false, field: 'phone' });
        if (!reading.ok) expect(reading.reason).toMatch(/mobile number such as/);
      } else {
        expect(reading).toEqual({ ok: true, msisdn: sent, country });
      }
    });
  }

  it('says in words why a number is refused', () => {
    const reason = (typed: string, country = 'KE') => {
      const reading = readMobileNumber(typed, country);
      return reading.ok ? '' : reading.reason;
    };
    expect(reason('0202 123 456')).toMatch(
      /^is a landline number; a PIN prompt needs a Kenyan mobile number/,
    );
    expect(reason('+256 772 123 456')).toMatch(
      /^is a Ugandan number; this checkout needs a Kenyan/,
    );
    expect(reason('071234567')).toMatch(
      /^is not a valid number: it must be a Kenyan mobile number/,
    );
  });

  it('takes the country from `country`, else the currency, else asks for it', () => {
    expect(mobileMoneyCountry('ug', 'KES')).toBe('UG');
    expect(mobileMoneyCountry(undefined, 'tzs')).toBe('TZ');
    expect(mobileMoneyCountry(undefined, 'USD')).toBeNull();
    expect(readMobileNumber('0712345678', null)).toMatchObject({ ok: false, field: 'country' });
    expect(readMobileNumber('0712345678', 'FR')).toMatchObject({
      ok: false,
      field: 'country',
      reason: expect.stringContaining('must be one of KE, UG, TZ'),
    });
  });
});

describe('billing phones as people type them', () => {
  it.each([
    ['0712 345 678', 'KE', '+254712345678'],
    ['+254 712-345-678', undefined, '+254712345678'],
    ['00254 712 345 678', undefined, '+254712345678'],
    ['(0)20 2345678', 'ke', '+254202345678'],
    ['0772 123 456', 'UG', '+256772123456'],
    ['+1 (415) 555-2671', 'KE', '+14155552671'],
  ])('%s (country %s) is sent as %s', (typed, country, sent) => {
    expect(billingPhone(typed, country)).toBe(sent);
  });

  it('leaves what it cannot read for the digits rule: separators dropped, letters kept', () => {
    expect(billingPhone('0712 345 678', undefined)).toBe('0712345678');
    expect(billingPhone('254712345678', undefined)).toBe('254712345678');
    expect(billingPhone('12 34', 'KE')).toBe('1234');
    expect(billingPhone('call me', 'KE')).toBe('call me');
    expect(billingPhone(712345678, 'KE')).toBe(712345678);
  });
});
