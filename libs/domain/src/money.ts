/**
 * An exact amount of one currency, held as integer minor units (two decimal places, which is
 * the precision the gateway accepts for every currency). No float ever touches an amount:
 * decimal strings are parsed digit by digit and printed back the same way.
 */
export class Money {
  static readonly SCALE = 2;
  private static readonly FACTOR = 100n;
  private static readonly DECIMAL = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

  private constructor(
    readonly minorUnits: bigint,
    readonly currency: string,
  ) {}

  /** Parses "10", "10.5" or "10.50"; throws InvalidAmountError on anything else. */
  static of(amount: string, currency: string): Money {
    const match = Money.DECIMAL.exec(amount.trim());
    if (!match) throw new InvalidAmountError(amount);
    const whole = BigInt(match[1]);
    const fraction = BigInt((match[2] ?? '').padEnd(Money.SCALE, '0'));
    return new Money(whole * Money.FACTOR + fraction, currency.toUpperCase());
  }

  /**
   * Amounts arrive from the gateway as JSON numbers. String() gives the shortest exact decimal
   * of the parsed double, which for any amount with at most two decimals is the amount itself.
   */
  static fromGatewayNumber(amount: number, currency: string): Money {
    if (!Number.isFinite(amount) || amount < 0) throw new InvalidAmountError(String(amount));
    const text = String(amount);
    if (/e/i.test(text)) throw new InvalidAmountError(text);
    return Money.of(text, currency);
  }

  static fromMinorUnits(minorUnits: bigint, currency: string): Money {
    return new Money(minorUnits, currency.toUpperCase());
  }

  /** True when `amount` is a decimal with at most two places that Money.of would accept. */
  static isValidDecimal(amount: string): boolean {
    return Money.DECIMAL.test(amount.trim());
  }

  /** "1500.00": the canonical form stored in Postgres numeric(15,2) and sent to the gateway. */
  toDecimalString(): string {
    const whole = this.minorUnits / Money.FACTOR;
    const fraction = (this.minorUnits % Money.FACTOR).toString().padStart(Money.SCALE, '0');
    return `${whole}.${fraction}`;
  }

  /** The gateway's order body takes a JSON number; this is its exact decimal spelling. */
  toJSONNumberText(): string {
    return this.toDecimalString();
  }

  isPositive(): boolean {
    return this.minorUnits > 0n;
  }

  equals(other: Money): boolean {
    return this.currency === other.currency && this.minorUnits === other.minorUnits;
  }

  sameCurrency(other: Money): boolean {
    return this.currency === other.currency;
  }

  compare(other: Money): -1 | 0 | 1 {
    this.assertSameCurrency(other);
    if (this.minorUnits === other.minorUnits) return 0;
    return this.minorUnits < other.minorUnits ? -1 : 1;
  }

  plus(other: Money): Money {
    this.assertSameCurrency(other);
    return new Money(this.minorUnits + other.minorUnits, this.currency);
  }

  minus(other: Money): Money {
    this.assertSameCurrency(other);
    return new Money(this.minorUnits - other.minorUnits, this.currency);
  }

  toString(): string {
    return `${this.toDecimalString()} ${this.currency}`;
  }

  private assertSameCurrency(other: Money): void {
    if (!this.sameCurrency(other)) {
      throw new CurrencyMismatchError(this.currency, other.currency);
    }
  }
}

export class InvalidAmountError extends Error {
  constructor(readonly amount: string) {
    super(`"${amount}" is not an amount with at most 2 decimal places`);
    this.name = 'InvalidAmountError';
  }
}

export class CurrencyMismatchError extends Error {
  constructor(
    readonly left: string,
    readonly right: string,
  ) {
    super(`cannot combine ${left} with ${right}`);
    this.name = 'CurrencyMismatchError';
  }
}
