import { CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * Mobile numbers as customers type them (0712 345 678, +254 712-345-678, 254712345678, (0712)
 * 345678), read with libphonenumber-js's full metadata for the countries our mobile-money
 * networks serve, and sent to the gateway in the one form push takes: the international number
 * without its plus (254712345678).
 */
export const MOBILE_MONEY_COUNTRIES: Readonly<
  Record<string, { currency: string; adjective: string }>
> = {
  KE: { currency: 'KES', adjective: 'Kenyan' },
  UG: { currency: 'UGX', adjective: 'Ugandan' },
  TZ: { currency: 'TZS', adjective: 'Tanzanian' },
  RW: { currency: 'RWF', adjective: 'Rwandan' },
  MW: { currency: 'MWK', adjective: 'Malawian' },
  ZM: { currency: 'ZMW', adjective: 'Zambian' },
};

/** The longest phone number read as typed (spaces, dashes, brackets included); longer is refused. */
export const TYPED_PHONE_MAX_LENGTH = 40;

const countryOfCurrency = (currency: string): string | undefined =>
  Object.keys(MOBILE_MONEY_COUNTRIES).find(
    (country) => MOBILE_MONEY_COUNTRIES[country].currency === currency.toUpperCase(),
  );

/** A few spellings of the country's mobile numbers, for the reason a refused number is given. */
const EXAMPLES: Readonly<Record<string, string>> = {
  KE: '0712 345 678, 0110 123 456 or +254 712 345 678',
  UG: '0772 123 456 or +256 772 123 456',
  TZ: '0754 123 456 or +255 754 123 456',
  RW: '0781 234 567 or +250 781 234 567',
  MW: '0991 234 567 or +265 991 234 567',
  ZM: '0955 123 456 or +260 955 123 456',
};

export type MobileNumberReading =
  | { ok: true; msisdn: string; country: string }
  | { ok: false; field: 'phone' | 'country'; reason: string };

/**
 * The country a mobile-money checkout's phone belongs to: the explicit `country`, else the one the
 * currency names. Null when neither names a country we serve.
 */
export function mobileMoneyCountry(country: unknown, currency: unknown): string | null {
  if (typeof country === 'string' && country.trim() !== '') return country.trim().toUpperCase();
  return typeof currency === 'string' ? (countryOfCurrency(currency) ?? null) : null;
}

export function readMobileNumber(typed: unknown, country: string | null): MobileNumberReading {
  if (country === null) {
    return {
      ok: false,
      field: 'country',
      reason: `is required when the currency names no country of ours (${Object.keys(MOBILE_MONEY_COUNTRIES).join(', ')})`,
    };
  }
  const known = MOBILE_MONEY_COUNTRIES[country];
  if (!known) {
    return {
      ok: false,
      field: 'country',
      reason: `must be one of ${Object.keys(MOBILE_MONEY_COUNTRIES).join(', ')}`,
    };
  }
  const words = `a ${known.adjective} mobile number such as ${EXAMPLES[country]}`;
  if (typeof typed !== 'string' || typed.trim() === '') {
    return { ok: false, field: 'phone', reason: `must be ${words}` };
  }
  // Letters are never part of a number here (libphonenumber would read them as a keypad's).
  if (/[A-Za-z]/.test(typed) || typed.length > TYPED_PHONE_MAX_LENGTH) {
    return { ok: false, field: 'phone', reason: `must be ${words}` };
  }
  // 00 is how most of the world dials out (Kenya's own prefix is 000): read 00254… as +254….
  const parsed = parsePhoneNumberFromString(
    typed.trim().replace(/^00(?=[1-9])/, '+'),
    country as CountryCode,
  );
  if (!parsed || !parsed.isValid()) {
    return { ok: false, field: 'phone', reason: `is not a valid number: it must be ${words}` };
  }
  if (parsed.country !== country) {
    const other = parsed.country ? MOBILE_MONEY_COUNTRIES[parsed.country]?.adjective : undefined;
    return {
      ok: false,
      field: 'phone',
      reason: `is ${other ? `a ${other}` : 'another country’s'} number; this checkout needs ${words}`,
    };
  }
  const type = parsed.getType();
  if (type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') {
    return {
      ok: false,
      field: 'phone',
      reason: `is a ${type === 'FIXED_LINE' ? 'landline' : 'non-mobile'} number; a PIN prompt needs ${words}`,
    };
  }
  return { ok: true, msisdn: parsed.number.slice(1), country };
}

/**
 * The billing phone as people type it (`0712 345 678` with the address's country, `+254 712-345
 * 678`, `00254…`): a number libphonenumber reads as valid comes out in E.164 (`+254712345678`),
 * the form the gateway's billing address takes; anything else comes out with its spaces, dots,
 * dashes and brackets dropped, for the plain digits rule to judge.
 */
export function billingPhone(typed: unknown, countryCode: unknown): unknown {
  if (typeof typed !== 'string' || /[A-Za-z]/.test(typed) || typed.length > TYPED_PHONE_MAX_LENGTH)
    return typed;
  const text = typed.trim().replace(/^00(?=[1-9])/, '+');
  const country =
    typeof countryCode === 'string' && /^[A-Za-z]{2}$/.test(countryCode)
      ? (countryCode.toUpperCase() as CountryCode)
      : undefined;
  const parsed = parsePhoneNumberFromString(text, country);
  if (parsed?.isValid()) return parsed.number;
  return text.replace(/[\s().-]/g, '');
}
