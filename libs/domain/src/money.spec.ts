import { CurrencyMismatchError, InvalidAmountError, Money } from './money';

describe('Money', () => {
  it('parses decimal strings exactly and prints two places', () => {
    expect(Money.of('10', 'kes').toDecimalString()).toBe('10.00');
    expect(Money.of('10.5', 'KES').toDecimalString()).toBe('10.50');
    expect(Money.of('0.07', 'KES').minorUnits).toBe(7n);
    expect(Money.of('9999999999999.99', 'KES').toDecimalString()).toBe('9999999999999.99');
    expect(Money.of('10', 'kes').currency).toBe('KES');
  });

  it('refuses more than two decimals, signs, exponents and junk', () => {
    for (const bad of ['10.001', '-1', '1e3', '', 'abc', '1,000', '.5', '10.']) {
      expect(() => Money.of(bad, 'KES')).toThrow(InvalidAmountError);
    }
  });

  it('adds without the float error that 0.1 + 0.2 shows', () => {
    expect(Money.of('0.1', 'KES').plus(Money.of('0.2', 'KES')).toDecimalString()).toBe('0.30');
    expect(Money.of('100', 'KES').minus(Money.of('0.01', 'KES')).toDecimalString()).toBe('99.99');
  });

  it('reads gateway JSON numbers without arithmetic', () => {
    expect(Money.fromGatewayNumber(10.0, 'KES').toDecimalString()).toBe('10.00');
    expect(Money.fromGatewayNumber(1500.55, 'KES').toDecimalString()).toBe('1500.55');
    expect(Money.fromGatewayNumber(0.29, 'KES').toDecimalString()).toBe('0.29');
    expect(() => Money.fromGatewayNumber(1e21, 'KES')).toThrow(InvalidAmountError);
  });

  it('compares only within one currency', () => {
    expect(Money.of('5', 'KES').compare(Money.of('5.00', 'KES'))).toBe(0);
    expect(Money.of('5', 'KES').compare(Money.of('6', 'KES'))).toBe(-1);
    expect(Money.of('5', 'KES').equals(Money.of('5', 'USD'))).toBe(false);
    expect(() => Money.of('5', 'KES').compare(Money.of('5', 'USD'))).toThrow(CurrencyMismatchError);
  });
});
