/**
 * What a transaction lookup says about a payment, decided on the gateway's status_code alone
 * (0 pending/invalid, 1 completed, 2 failed, 3 reversed); the description text varies in casing.
 */
export type PaymentOutcome = 'pending' | 'completed' | 'failed' | 'reversed';

export function paymentOutcomeFromStatusCode(statusCode: number): PaymentOutcome | undefined {
  switch (statusCode) {
    case 0:
      return 'pending';
    case 1:
      return 'completed';
    case 2:
      return 'failed';
    case 3:
      return 'reversed';
    default:
      return undefined;
  }
}
