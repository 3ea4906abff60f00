import { ApiProperty } from '@nestjs/swagger';
import { NotificationStatus } from '@app/persistence';
import {
  DATE_TIME,
  INTEGER,
  NULLABLE_DATE_TIME,
  text,
  URL_MAX_LENGTH,
  UUID,
} from '../../http/documented-schemas';
import { CursorPage } from '../../http/cursor-page';
import { NOTIFICATION_LAST_ERROR_MAX_LENGTH } from '../../ipn/inbox-limits';
import { IPN_REGISTRATIONS_LISTED } from '../../orders/ipn-registration.service';
import { NOTIFICATION_STATUSES } from './admin.dto';
import { JOB_ID_MAX_LENGTH } from './dead-letters/dead-letter.service';
import type {
  NotificationInboxService,
  NotificationPage,
  NotificationView,
} from './notification-inbox.service';
import { Answer } from './admin-response-schemas';

/**
 * Documentation of the admin answers (OpenAPI only: the JSON is built by the views and services
 * each class names). Each class implements the type it documents, so a field added there without
 * its documentation fails the type check.
 */

/** An IPN registration as AdminOperationsController.ipnRegistrations lists it. */
export interface IpnRegistrationView {
  url: string;
  current: boolean;
  account: string;
  method: 'GET' | 'POST';
  ipn_id: string;
  gateway_created_at: string | null;
  created_at: string;
}

/** What AdminOperationsController.ipnRegistrations answers. */
export interface IpnRegistrationListAnswer {
  items: IpnRegistrationView[];
}

export class AdminIpnRegistration implements IpnRegistrationView {
  @ApiProperty({
    // ipn_registrations.url (text): the deployment's URL, shown cut to URL_MAX_LENGTH. Not
    // format uri: "[redacted]" is not a URI's path.
    ...text(URL_MAX_LENGTH),
    example: 'https://checkout.shop.example/v1/ipn/[redacted]',
    description: 'The secret path segment is shown as [redacted]',
  })
  url!: string;

  @ApiProperty({
    type: Boolean,
    example: true,
    description: 'The URL and method this deployment registers',
  })
  current!: boolean;

  // ipn_registrations.gateway_account: varchar(20).
  @ApiProperty({ ...text(20), example: 'default', description: 'The merchant account it is for' })
  account!: string;

  @ApiProperty({ type: String, enum: ['GET', 'POST'], example: 'POST' })
  method!: 'GET' | 'POST';

  // ipn_registrations.ipn_id: varchar(64).
  @ApiProperty(text(64, { example: '11111111-2222-4333-8444-555555555555' }))
  ipn_id!: string;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-01T00:00:00.000Z' })
  gateway_created_at!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:01.000Z' })
  created_at!: string;
}

/** GET /v1/admin/ipn-registrations. */
export class AdminIpnRegistrationList implements IpnRegistrationListAnswer {
  @ApiProperty({
    type: [AdminIpnRegistration],
    maxItems: IPN_REGISTRATIONS_LISTED,
    description: `The latest ${IPN_REGISTRATIONS_LISTED}, oldest first`,
  })
  items!: AdminIpnRegistration[];
}

/** One stored IPN notification (notification-inbox.service.ts `toView`). */
export class AdminNotification implements NotificationView {
  @ApiProperty({ ...UUID, example: '3c9a1e52-7d4b-4f6e-8a2c-5b0d9e1f7a34' })
  id!: string;

  @ApiProperty({ type: String, enum: NOTIFICATION_STATUSES, example: 'applied' })
  status!: NotificationStatus;

  // ipn_notifications.order_tracking_id: varchar(100), as received (cut by the inbox).
  @ApiProperty(text(100, { nullable: true, example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59' }))
  order_tracking_id!: string | null;

  // ipn_notifications.merchant_reference: varchar(150), as received (cut by the inbox).
  @ApiProperty(text(150, { nullable: true, example: 'ORDER-2041' }))
  merchant_reference!: string | null;

  // ipn_notifications.notification_type: varchar(32), as received (cut by the inbox).
  @ApiProperty(text(32, { nullable: true, example: 'IPNCHANGE' }))
  notification_type!: string | null;

  // ipn_notifications.http_method: varchar(8).
  @ApiProperty(text(8, { example: 'POST' }))
  http_method!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      OrderTrackingId: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
      OrderMerchantReference: 'ORDER-2041',
      OrderNotificationType: 'IPNCHANGE',
    },
    description: 'The payload as received',
  })
  payload!: Record<string, unknown>;

  // ipn_notifications.remote_address: varchar(64).
  @ApiProperty(text(64, { nullable: true, example: '196.201.214.200' }))
  remote_address!: string | null;

  @ApiProperty({ ...UUID, nullable: true, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  order_id!: string | null;

  @ApiProperty({ ...INTEGER, example: 1 })
  attempts!: number;

  // ipn_notifications.last_error: text, cut by its writers (ipn-inbox.ts).
  @ApiProperty(text(NOTIFICATION_LAST_ERROR_MAX_LENGTH, { nullable: true, example: null }))
  last_error!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:31:09.000Z' })
  received_at!: string;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: null })
  next_attempt_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:31:10.000Z' })
  processed_at!: string | null;
}

/** GET /v1/admin/notifications. */
export class AdminNotificationPage
  extends CursorPage(AdminNotification, 'Newest first')
  implements NotificationPage {}

/** POST /v1/admin/notifications/{id}/replay: the notification, queued again, and its job. */
export class AdminNotificationReplay
  extends AdminNotification
  implements Answer<NotificationInboxService['replay']>
{
  @ApiProperty({
    ...text(JOB_ID_MAX_LENGTH),
    example: 'notification-3c9a1e52-7d4b-4f6e-8a2c-5b0d9e1f7a34-2',
    description: 'The verification job id',
  })
  job!: string;
}
