import { ApiProperty } from '@nestjs/swagger';
import { ORDER_STATUSES } from '@app/domain';
import { DATE_TIME, EVENT_SOURCES, text } from '../http/documented-schemas';
import type { TimelineEntry } from './order-view';

/** An order status a timeline entry moved from or to (order_events.from_status / to_status). */
const TIMELINE_STATUS = {
  type: String,
  nullable: true,
  // null is listed too: a validator applies enum to a nullable value as well (OpenAPI 3.0.3).
  enum: [...ORDER_STATUSES, null],
};

/**
 * Documentation of one entry of an order's timeline (OpenAPI only: order-view.ts
 * `toTimelineEntry` builds it), in the shop's order answer; the admin's order answer words two
 * fields its own way (AdminOrderTimelineEntry).
 */
export class TimelineEntryResponse implements TimelineEntry {
  @ApiProperty({
    // order_events.type: varchar(48); the journal's writers name it (no closed list of them).
    ...text(48),
    example: 'status_changed',
    description: 'e.g. created, submitted, status_changed, flagged_for_review, refund_requested',
  })
  type!: string;
  @ApiProperty({ ...TIMELINE_STATUS, example: 'pending' }) from_status!: string | null;
  @ApiProperty({ ...TIMELINE_STATUS, example: 'completed' }) to_status!: string | null;
  @ApiProperty({ type: String, example: 'ipn', enum: EVENT_SOURCES })
  source!: string;
  // order_events.actor: varchar(100).
  @ApiProperty(text(100, { example: null, nullable: true })) actor!: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:31:12.000Z' }) at!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} })
  details!: Record<string, unknown>;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The gateway record that caused the change',
  })
  gateway_record!: Record<string, unknown> | null;
}
