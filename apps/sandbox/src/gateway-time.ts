import { randomInt } from 'node:crypto';

/**
 * An instant with the gateway's seven fractional-second digits (.NET ticks). JavaScript has
 * milliseconds; the four digits below are filled so that the strings look like the real ones.
 */
export interface GatewayInstant {
  at: Date;
  /** Seven digits, e.g. "2652354". */
  fraction: string;
}

export function gatewayNow(now: Date = new Date()): GatewayInstant {
  const millis = String(now.getUTCMilliseconds()).padStart(3, '0');
  return { at: now, fraction: `${millis}${String(randomInt(1, 10_000)).padStart(4, '0')}` };
}

const secondsPart = (date: Date): string => date.toISOString().slice(0, 19);
const trimmed = (fraction: string): string => {
  const digits = fraction.replace(/0+$/, '');
  return digits === '' ? '' : `.${digits}`;
};

/** "2024-03-18T15:25:46.2652354Z": a new IPN registration, token expiryDate. */
export const utcSevenDigits = (instant: GatewayInstant): string =>
  `${secondsPart(instant.at)}.${instant.fraction}Z`;

/** "2024-03-18T15:25:46.2652354" trimmed of trailing zeros, no Z: a re-read registration. */
export const utcTrimmed = (instant: GatewayInstant): string =>
  `${secondsPart(instant.at)}${trimmed(instant.fraction)}`;

const EAT_OFFSET_MS = 3 * 60 * 60 * 1000;

/** "2024-03-18T18:25:46.75": East Africa Time, no designator (status record created_date). */
export const eastAfricaTime = (instant: GatewayInstant): string =>
  `${secondsPart(new Date(instant.at.getTime() + EAT_OFFSET_MS))}${trimmed(instant.fraction)}`;

/** Today's calendar date in East Africa Time as yyyy-MM-dd, for subscription start checks. */
export const eastAfricaToday = (now: Date = new Date()): string =>
  new Date(now.getTime() + EAT_OFFSET_MS).toISOString().slice(0, 10);
