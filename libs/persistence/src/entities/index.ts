import { EntitySchema } from 'typeorm';
import { ActivityRollupEntity, ActivityTotalEntity } from './activity-total.entity';
import { ApiKeyEntity } from './api-key.entity';
import { AuditEventEntity } from './audit-event.entity';
import { GatewayTokenEntity } from './gateway-token.entity';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { IpnNotificationEntity } from './ipn-notification.entity';
import { IpnRegistrationEntity } from './ipn-registration.entity';
import { LookupReservationEntity } from './lookup-reservation.entity';
import { OrderEventEntity } from './order-event.entity';
import { OrderEntity } from './order.entity';
import { OperatorSessionEntity } from './operator-session.entity';
import { OutboxEventEntity } from './outbox-event.entity';
import { PaymentAttemptEntity } from './payment-attempt.entity';
import { PaymentLinkEntity } from './payment-link.entity';
import { RateLimitWindowEntity } from './rate-limit-window.entity';
import { ReconciliationReportEntity } from './reconciliation-report.entity';
import { RefundApprovalEntity } from './refund-approval.entity';
import { RefundEntity } from './refund.entity';
import { SubscriptionChargeEntity } from './subscription-charge.entity';
import { UnmatchedPaymentEntity } from './unmatched-payment.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookMessageEntity } from './webhook-message.entity';

export * from './columns';
export * from './gateway-token.entity';
export * from './idempotency-key.entity';
export * from './ipn-notification.entity';
export * from './ipn-registration.entity';
export * from './lookup-reservation.entity';
export * from './order-event.entity';
export * from './order.entity';
export * from './outbox-event.entity';
export * from './payment-attempt.entity';
export * from './payment-link.entity';
export * from './activity-total.entity';
export * from './audit-event.entity';
export * from './api-key.entity';
export * from './operator-session.entity';
export * from './refund-approval.entity';
export * from './rate-limit-window.entity';
export * from './reconciliation-report.entity';
export * from './refund.entity';
export * from './subscription-charge.entity';
export * from './unmatched-payment.entity';
export * from './webhook-delivery.entity';
export * from './webhook-endpoint.entity';
export * from './webhook-message.entity';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type EntityTarget = Function | EntitySchema;

/** Every entity the service maps; the data source and the drift check use this one list. */
export const ENTITIES: EntityTarget[] = [
  OrderEntity,
  OrderEventEntity,
  PaymentAttemptEntity,
  PaymentLinkEntity,
  IpnRegistrationEntity,
  IpnNotificationEntity,
  RefundEntity,
  OutboxEventEntity,
  WebhookDeliveryEntity,
  WebhookEndpointEntity,
  WebhookMessageEntity,
  SubscriptionChargeEntity,
  IdempotencyKeyEntity,
  ReconciliationReportEntity,
  GatewayTokenEntity,
  LookupReservationEntity,
  RateLimitWindowEntity,
  ActivityTotalEntity,
  ActivityRollupEntity,
  AuditEventEntity,
  ApiKeyEntity,
  OperatorSessionEntity,
  RefundApprovalEntity,
  UnmatchedPaymentEntity,
];
