import {
  CURRENCIES,
  FIELD_LABELS,
  ORDER_MESSAGES,
  REDIRECT_MODES,
  SUBSCRIPTION_FREQUENCIES,
} from '../gateway-choices';
import { eastAfricaToday } from '../gateway-time';
import { isPlainDecimal, isZeroDecimal } from '../http/exact-json';
import { decimalField, isHttpUrl, objectField, presentString, stringField } from '../http/fields';
import type { SubscriptionDetails } from './sandbox-order';

/** The required fields among `required` that are absent, null or blank. */
export function missingFields(
  fields: Record<string, unknown>,
  required: readonly string[],
): string[] {
  return required.filter((name) =>
    name === 'billing_address'
      ? objectField(fields, name) === undefined
      : name === 'amount'
        ? decimalField(fields, name) === undefined
        : presentString(fields, name) === undefined,
  );
}

export const requiredMessage = (field: string): string =>
  `${FIELD_LABELS[field] ?? field} is required`;

export interface OrderTerms {
  amount: string;
  currency: string;
  callbackUrl: string | null;
  cancellationUrl: string | null;
  accountNumber: string | null;
  subscription: SubscriptionDetails | null;
}

const DATE = /^(\d{2})-(\d{2})-(\d{4})$/;

/** dd-MM-yyyy to yyyy-MM-dd when it names a real calendar date. */
function calendarDate(text: string): string | undefined {
  const match = DATE.exec(text.trim());
  if (!match) return undefined;
  const iso = `${match[3]}-${match[2]}-${match[1]}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : undefined;
}

/** Value rules shared by order and push, after the required fields are present. */
export function checkOrderTerms(fields: Record<string, unknown>): {
  terms: OrderTerms;
  problems: string[];
} {
  const problems: string[] = [];
  const amount = decimalField(fields, 'amount') ?? '';
  if (!isPlainDecimal(amount) || isZeroDecimal(amount)) problems.push(ORDER_MESSAGES.invalidAmount);
  const currency = presentString(fields, 'currency') ?? '';
  if (!(CURRENCIES as readonly string[]).includes(currency)) {
    problems.push(ORDER_MESSAGES.invalidCurrency);
  }
  const callbackUrl = presentString(fields, 'callback_url') ?? null;
  if (callbackUrl !== null && !isHttpUrl(callbackUrl)) {
    problems.push(ORDER_MESSAGES.invalidCallbackUrl);
  }
  const redirectMode = presentString(fields, 'redirect_mode');
  if (redirectMode !== undefined && !(REDIRECT_MODES as readonly string[]).includes(redirectMode)) {
    problems.push(ORDER_MESSAGES.invalidRedirectMode);
  }
  const accountNumber = presentString(fields, 'account_number') ?? null;
  const subscription = checkSubscription(fields, accountNumber, problems);
  return {
    terms: {
      amount,
      currency,
      callbackUrl,
      cancellationUrl: presentString(fields, 'cancellation_url') ?? null,
      accountNumber,
      subscription,
    },
    problems,
  };
}

function checkSubscription(
  fields: Record<string, unknown>,
  accountNumber: string | null,
  problems: string[],
): SubscriptionDetails | null {
  const details = objectField(fields, 'subscription_details');
  if (details === undefined) return null;
  if (accountNumber === null) problems.push(ORDER_MESSAGES.accountNumberRequired);
  const startDate = presentString(details, 'start_date');
  const endDate = presentString(details, 'end_date');
  const frequency = presentString(details, 'frequency');
  if (startDate === undefined)
    problems.push(ORDER_MESSAGES.subscriptionFieldRequired('start date'));
  if (endDate === undefined) problems.push(ORDER_MESSAGES.subscriptionFieldRequired('end date'));
  if (frequency === undefined) problems.push(ORDER_MESSAGES.subscriptionFieldRequired('frequency'));
  if (startDate !== undefined) {
    const start = calendarDate(startDate);
    if (start === undefined) problems.push(ORDER_MESSAGES.startDateFormat);
    else if (start <= eastAfricaToday()) problems.push(ORDER_MESSAGES.startDatePast);
  }
  // The range is not validated: an end date before the start date is accepted.
  if (endDate !== undefined && calendarDate(endDate) === undefined) {
    problems.push(ORDER_MESSAGES.endDateFormat);
  }
  if (
    frequency !== undefined &&
    !(SUBSCRIPTION_FREQUENCIES as readonly string[]).includes(frequency.toUpperCase())
  ) {
    problems.push(ORDER_MESSAGES.frequencyInvalid);
  }
  return {
    startDate: stringField(details, 'start_date') ?? '',
    endDate: stringField(details, 'end_date') ?? '',
    frequency: (frequency ?? '').toUpperCase(),
  };
}
