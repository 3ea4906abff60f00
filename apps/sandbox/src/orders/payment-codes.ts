import { randomInt } from 'node:crypto';

const digits = (count: number): string => {
  let text = String(randomInt(1, 10));
  while (text.length < count) text += String(randomInt(0, 10));
  return text;
};

const RECEIPT_LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const RECEIPT_CHARACTERS = `${RECEIPT_LETTERS}0123456789`;

/** Card payments: 22 digits. */
export const cardConfirmationCode = (): string => digits(22);

/** Completed mobile money: an M-Pesa-like alphanumeric receipt, e.g. "SJK2L4M9QX". */
export function mobileReceiptCode(): string {
  let text = RECEIPT_LETTERS[randomInt(0, RECEIPT_LETTERS.length)];
  while (text.length < 10) text += RECEIPT_CHARACTERS[randomInt(0, RECEIPT_CHARACTERS.length)];
  return text;
}

/** Failed mobile money: a short numeric value. */
export const failedMobileCode = (): string => digits(7);

/** The generated merchant_reference that push answers instead of the id sent. */
export const pushReference = (): string => digits(18);
