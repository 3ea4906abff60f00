import type { MobileNetwork } from '../gateway-choices';
import type { GatewayInstant } from '../gateway-time';

export type OrderState = 'pending' | 'completed' | 'failed' | 'reversed' | 'cancelled';
export type PaymentInstrument = 'card' | MobileNetwork;

export interface SubscriptionDetails {
  startDate: string;
  endDate: string;
  frequency: string;
}

/** The payment attempt that settled an order (the last one wins after a retry). */
export interface Payment {
  instrument: PaymentInstrument;
  account: string;
  confirmationCode: string;
  /** payment_status_code: empty on completion, sometimes a reason on failure. */
  statusCode: string;
  /** When the customer paid (or the attempt failed): the status record's created_date then. */
  at: GatewayInstant;
}

/** Facts the lookup adds to a recurring charge. */
export interface RecurringCharge {
  parentTrackingId: string;
  correlationId: number;
  firstName: string;
  lastName: string;
}

export interface SandboxOrder {
  orderTrackingId: string;
  merchantId: string;
  /** The id the merchant sent (for a recurring charge: the account_number). */
  merchantReference: string;
  /** Push only: the generated merchant_reference it answered. */
  generatedReference: string | null;
  channel: 'hosted' | 'push' | 'recurring';
  /** Exact decimal text as received. */
  amount: string;
  currency: string;
  description: string;
  callbackUrl: string | null;
  cancellationUrl: string | null;
  notificationId: string;
  accountNumber: string | null;
  billingAddress: Record<string, unknown>;
  subscription: SubscriptionDetails | null;
  msisdn: string | null;
  network: MobileNetwork | null;
  createdAt: GatewayInstant;
  state: OrderState;
  payment: Payment | null;
  recurring: RecurringCharge | null;
}
