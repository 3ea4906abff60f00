import { ServiceConfig } from '@app/config';
import { Money } from '@app/domain';
import { compareCalendarDates, gatewayToday, toGatewayCalendarDate } from '@app/gateway-client';
import {
  MAX_LENGTH,
  registerDecorator,
  ValidateBy,
  ValidationArguments,
  ValidationOptions,
} from 'class-validator';
import { mobileMoneyCountry, readMobileNumber } from './mobile-number';

/**
 * The configured lists the DTOs check against. class-validator builds constraints without Nest's
 * injector, so OrdersModule hands the validated config over once at start.
 */
const configured = {
  currencies: ['KES', 'UGX', 'TZS', 'USD'],
  networks: ['MPESA', 'AIRTELKE'],
};

export function useCheckoutRules(config: ServiceConfig): void {
  configured.currencies = config.currencies.map((c) => c.toUpperCase());
  configured.networks = config.gateway.mobileMoneyNetworks;
}

/** A JSON number goes through String(n): 10.5 → "10.5"; 1e21 or 0.001 then fail the decimal rule. */
export function amountText(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  return typeof value === 'string' ? value.trim() : null;
}

function rule(
  name: string,
  message: string | ((args: ValidationArguments) => string),
  test: (value: unknown, args: ValidationArguments) => boolean,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message, ...options },
      validator: { validate: test },
    });
}

/**
 * At most `max` characters when the value is a string; any other value is left to the field's own
 * rule, which names its problem. Registered under class-validator's MaxLength name, so the
 * document (apps/api/src/validation-bounds.ts) shows the bound as the maxLength it is.
 */
export const AtMostCharacters = (max: number): PropertyDecorator =>
  ValidateBy({
    name: MAX_LENGTH,
    constraints: [max],
    validator: {
      validate: (value) => typeof value !== 'string' || value.length <= max,
      defaultMessage: () => `must be shorter than or equal to ${max} characters`,
    },
  });

export const IsPositiveAmount = (): PropertyDecorator =>
  rule('isPositiveAmount', 'must be a positive amount with at most 2 decimals', (value) => {
    const text = amountText(value);
    return text !== null && Money.isValidDecimal(text) && Money.of(text, 'XXX').isPositive();
  });

export const IsConfiguredCurrency = (): PropertyDecorator =>
  rule(
    'isConfiguredCurrency',
    'must be one of the configured currencies',
    (value) => typeof value === 'string' && configured.currencies.includes(value.toUpperCase()),
  );

export const IsConfiguredNetwork = (): PropertyDecorator =>
  rule(
    'isConfiguredNetwork',
    'must be one of the configured mobile money networks',
    (value) =>
      typeof value === 'string' &&
      configured.networks.some((network) => network.toUpperCase() === value.toUpperCase()),
  );

/** The gateway needs a way to reach the customer: an email, a phone, or both. */
export const HasEmailOrPhone = (): PropertyDecorator =>
  rule('hasEmailOrPhone', 'must include an email or a phone', (value) => {
    const customer = value as { email?: unknown; phone?: unknown } | null;
    return (
      typeof customer === 'object' &&
      customer !== null &&
      (typeof customer.email === 'string' || typeof customer.phone === 'string')
    );
  });

/** Start dates are compared on the gateway's (East Africa) calendar, as the gateway does. */
export const IsFutureDate = (): PropertyDecorator =>
  rule('isFutureDate', 'must be in the future', (value) => {
    const date = typeof value === 'string' ? toGatewayCalendarDate(value) : null;
    return date !== null && compareCalendarDates(date, gatewayToday()) > 0;
  });

/** The gateway accepts an end before the start; we refuse it. */
export const IsAfterField = (field: string): PropertyDecorator =>
  rule(`isAfter_${field}`, `must be after ${field}`, (value, args) => {
    const other = (args.object as Record<string, unknown>)[field];
    const end = typeof value === 'string' ? toGatewayCalendarDate(value) : null;
    const start = typeof other === 'string' ? toGatewayCalendarDate(other) : null;
    // An unreadable start is reported on the start field itself.
    if (!start) return true;
    return end !== null && compareCalendarDates(end, start) > 0;
  });

/**
 * A mobile-money checkout's country: given, or named by its currency; one that our networks serve.
 * Checked even when absent (no IsOptional): USD names no country.
 */
export const IsMobileMoneyCountry = (): PropertyDecorator =>
  ruleWithReason('isMobileMoneyCountry', countryProblem);

/** A rule whose reason depends on the value and its object: `problem` answers null when valid. */
function ruleWithReason(
  name: string,
  problem: (args: ValidationArguments) => string | null,
): PropertyDecorator {
  return rule(
    name,
    (args) => problem(args) ?? '',
    (_value, args) => problem(args) === null,
  );
}

function countryProblem(args: ValidationArguments): string | null {
  const object = args.object as { country?: unknown; currency?: unknown };
  if (object.country !== undefined && typeof object.country !== 'string') return 'must be a string';
  const reading = readMobileNumber(undefined, mobileMoneyCountry(object.country, object.currency));
  return !reading.ok && reading.field === 'country' ? reading.reason : null;
}

/** A mobile number of the checkout's country, however it was typed (see mobile-number.ts). */
export const IsMobileNumberOfCheckout = (): PropertyDecorator =>
  ruleWithReason('isMobileNumberOfCheckout', phoneProblem);

function phoneProblem(args: ValidationArguments): string | null {
  const object = args.object as { country?: unknown; currency?: unknown };
  const reading = readMobileNumber(args.value, mobileMoneyCountry(object.country, object.currency));
  // A missing or unknown country is the country field's problem, reported there.
  return !reading.ok && reading.field === 'phone' ? reading.reason : null;
}
