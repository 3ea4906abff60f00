import { ApiProperty } from '@nestjs/swagger';
import { CURRENCY, DATE_TIME, INTEGER, SIGNED_AMOUNT, text } from '../../http/documented-schemas';
import { TIME_ZONE_MAX_LENGTH } from '../../http/time-zone';
import { FAILURE_REASON_MAX_LENGTH } from '../../orders/order-view';
import { LAG_BINS_MS } from '../activity';
import { OVERVIEW_KEYS_MAX, OVERVIEW_WINDOWS } from './overview.service';

/** Documentation of the overview (the JSON is built by OverviewService.overview). */

const LAG_BOUND = { ...INTEGER, maximum: LAG_BINS_MS[LAG_BINS_MS.length - 1] } as const;

/** What a bucket and the window's totals both count. */
class OverviewCountsResponse {
  @ApiProperty({ ...INTEGER, description: 'Checkouts started' })
  checkouts!: number;

  @ApiProperty({
    ...INTEGER,
    description: 'Payments received (an earlier attempt paying too counts)',
  })
  paid!: number;

  @ApiProperty({
    ...INTEGER,
    description:
      'Payment failures, by when the gateway reported them (a later payment of the same order does not undo one)',
  })
  failed!: number;

  @ApiProperty({ ...INTEGER, description: 'Orders cancelled' })
  cancelled!: number;

  @ApiProperty({ ...INTEGER, description: 'Orders expired unpaid' })
  expired!: number;

  @ApiProperty({ ...INTEGER, description: 'Refunds asked for' })
  refund_requests!: number;

  @ApiProperty({ ...INTEGER, description: 'Refunds the gateway accepted' })
  refunds!: number;

  @ApiProperty({ ...INTEGER, description: 'Notifications received from the gateway' })
  notifications!: number;

  @ApiProperty({
    ...INTEGER,
    description: 'Of those, without a verdict yet',
  })
  notifications_open!: number;

  @ApiProperty({
    ...LAG_BOUND,
    nullable: true,
    description:
      'Notification lag, 95th percentile: 95% of the applied notifications (verified and applied) were applied within this many ms (a bin bound). Null when none was verified, or when it is past the last bin (see totals.notification_lag)',
  })
  lag_p95_ms!: number | null;

  @ApiProperty({ ...INTEGER, description: 'Webhook attempts the endpoint answered with 2xx' })
  webhook_delivered!: number;

  @ApiProperty({ ...INTEGER, description: 'Webhook attempts that failed' })
  webhook_failed!: number;
}

export class OverviewBucketResponse extends OverviewCountsResponse {
  @ApiProperty({ ...DATE_TIME, description: "The bucket's start (a local midnight for days)" })
  starts_at!: string;
}

export class OverviewMoneyResponse {
  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty({ ...INTEGER, description: 'How many' })
  count!: number;

  @ApiProperty({ ...SIGNED_AMOUNT, description: 'Their sum; refunds and reversals negative' })
  amount!: string;
}

export class OverviewFailureResponse {
  @ApiProperty({
    ...text(FAILURE_REASON_MAX_LENGTH),
    example: 'insufficient_funds',
    description: "The gateway's reason (unknown when it gave none)",
  })
  reason!: string;

  @ApiProperty(INTEGER)
  count!: number;
}

export class OverviewLagBinResponse {
  @ApiProperty({
    ...LAG_BOUND,
    nullable: true,
    description:
      'Verified in less than this many ms (and no less than the bin before); null for the rest',
  })
  under_ms!: number | null;

  @ApiProperty(INTEGER)
  count!: number;
}

export class OverviewTotalsResponse extends OverviewCountsResponse {
  @ApiProperty({ ...INTEGER, description: 'Orders of the window still waiting for their payment' })
  pending_now!: number;

  @ApiProperty({ ...INTEGER, description: 'Payments the gateway reversed (chargebacks)' })
  reversals!: number;

  @ApiProperty({ ...INTEGER, description: 'Checkouts on the hosted page' })
  hosted!: number;

  @ApiProperty({ ...INTEGER, description: 'Mobile-money push checkouts' })
  mobile_money!: number;

  @ApiProperty({ type: [OverviewMoneyResponse], maxItems: OVERVIEW_KEYS_MAX })
  paid_amounts!: OverviewMoneyResponse[];

  @ApiProperty({ type: [OverviewMoneyResponse], maxItems: OVERVIEW_KEYS_MAX })
  refund_amounts!: OverviewMoneyResponse[];

  @ApiProperty({ type: [OverviewMoneyResponse], maxItems: OVERVIEW_KEYS_MAX })
  reversal_amounts!: OverviewMoneyResponse[];

  @ApiProperty({
    type: [OverviewFailureResponse],
    maxItems: OVERVIEW_KEYS_MAX,
    description: 'The most frequent first',
  })
  failures_by_reason!: OverviewFailureResponse[];

  @ApiProperty({
    type: [OverviewLagBinResponse],
    maxItems: LAG_BINS_MS.length + 1,
    description: 'Verified notifications per lag bin, shortest first',
  })
  notification_lag!: OverviewLagBinResponse[];
}

export class OverviewResponse {
  @ApiProperty({ enum: OVERVIEW_WINDOWS })
  window!: string;

  @ApiProperty({ enum: ['minute', 'hour', 'day'] })
  bucket!: string;

  @ApiProperty({
    ...text(TIME_ZONE_MAX_LENGTH),
    example: 'Africa/Nairobi',
    description: "The zone of the month's days",
  })
  tz!: string;

  @ApiProperty({ ...DATE_TIME, description: 'The first bucket starts here' })
  from!: string;

  @ApiProperty({ ...DATE_TIME, description: 'Now: the last bucket runs to here' })
  to!: string;

  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    description: 'The worker has summed every hour before this; null before its first run',
  })
  summed_through!: string | null;

  @ApiProperty({
    description:
      'False when the worker is more than three hours behind: the hours between summed_through and three hours ago are not counted yet',
  })
  complete!: boolean;

  @ApiProperty({ type: [OverviewBucketResponse], maxItems: 60, description: 'Oldest first' })
  buckets!: OverviewBucketResponse[];

  @ApiProperty({ type: OverviewTotalsResponse })
  totals!: OverviewTotalsResponse;
}
