import { ApiProperty } from '@nestjs/swagger';
import type { JobState } from 'bullmq';
import { JobName, QUEUE_NAMES } from '@app/queues';
import { INTEGER, NULLABLE_DATE_TIME, text } from '../../../http/documented-schemas';
import { PAGE_LIMIT_MAX } from '../../../http/page-query';
import {
  DEAD_LETTER_REASON_MAX_LENGTH,
  DEAD_LETTER_STACKTRACE_MAX_LENGTH,
  DEAD_LETTER_STACKTRACES_MAX,
  type DeadJobView,
  type DeadLetterService,
  JOB_ID_MAX_LENGTH,
} from './dead-letter.service';
import { Answer, membersOf } from '../admin-response-schemas';

/**
 * Documentation of the admin answers (OpenAPI only: the JSON is built by the views and services
 * each class names). Each class implements the type it documents, so a field added there without
 * its documentation fails the type check.
 */

/** BullMQ's job states, and 'unknown' for a job it no longer finds (Job.getState). */
const JOB_STATES = membersOf<JobState | 'unknown'>({
  completed: true,
  failed: true,
  active: true,
  delayed: true,
  prioritized: true,
  waiting: true,
  'waiting-children': true,
  unknown: true,
});

/** Every job's name (job-catalogue.ts `JobData`). */
const JOB_NAMES = membersOf<JobName>({
  'verify-notifications': true,
  'verify-notification': true,
  'sync-order': true,
  'follow-refund': true,
  'refund-double-payment': true,
  'register-ipn': true,
  reconcile: true,
  'prune-operational-records': true,
  'sum-activity': true,
});

/** A job whose retries ran out, as the list shows it (dead-letter.service.ts `toView`). */
export class AdminDeadLetter implements DeadJobView {
  @ApiProperty({ type: String, enum: QUEUE_NAMES, example: 'order-sync' })
  queue!: string;

  @ApiProperty(text(JOB_ID_MAX_LENGTH, { example: '42' }))
  id!: string;

  @ApiProperty({ type: String, enum: JOB_NAMES, example: 'sync-order' })
  name!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { orderId: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d', source: 'poll' },
    description: "The job's data",
  })
  data!: Record<string, unknown>;

  @ApiProperty({ ...INTEGER, example: 8 })
  attempts_made!: number;

  // BullMQ keeps the error's whole message: the list cuts it (dead-letter.service.ts).
  @ApiProperty(
    text(DEAD_LETTER_REASON_MAX_LENGTH, { nullable: true, example: 'gateway unreachable' }),
  )
  failed_reason!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:30:00.000Z' })
  created_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:45:00.000Z' })
  failed_at!: string | null;
}

/** GET /v1/admin/dead-letters. */
export class AdminDeadLetterPage implements Answer<DeadLetterService['list']> {
  @ApiProperty({
    type: 'object',
    additionalProperties: { ...INTEGER },
    example: { notifications: 0, 'order-sync': 1, 'ipn-registration': 0, reconciliation: 0 },
    description: 'Failed jobs per queue (the queue asked, or every queue)',
  })
  counts!: Record<string, number>;

  @ApiProperty({
    type: [AdminDeadLetter],
    maxItems: PAGE_LIMIT_MAX,
    description: 'Most recently failed first',
  })
  items!: AdminDeadLetter[];
}

/** GET /v1/admin/dead-letters/{queue}/{jobId}: the job with its stack traces and state. */
export class AdminDeadLetterDetail
  extends AdminDeadLetter
  implements Answer<DeadLetterService['inspect']>
{
  @ApiProperty({
    type: [String],
    maxItems: DEAD_LETTER_STACKTRACES_MAX,
    maxLength: DEAD_LETTER_STACKTRACE_MAX_LENGTH,
    example: ['Error: gateway unreachable\n    at OrderSyncJob.run (order-sync.job.ts:41:11)'],
    description: `One per failed attempt, the latest ${DEAD_LETTER_STACKTRACES_MAX} (each cut to ${DEAD_LETTER_STACKTRACE_MAX_LENGTH} characters)`,
  })
  stacktrace!: string[];

  @ApiProperty({ type: String, enum: JOB_STATES, example: 'failed' })
  state!: string;
}

/** POST /v1/admin/dead-letters/{queue}/{jobId}/replay. */
export class AdminDeadLetterReplay implements Answer<DeadLetterService['replay']> {
  @ApiProperty({ type: String, enum: QUEUE_NAMES, example: 'order-sync' })
  queue!: string;

  @ApiProperty(text(JOB_ID_MAX_LENGTH, { example: '42' }))
  id!: string;

  @ApiProperty({
    type: String,
    enum: JOB_STATES,
    example: 'waiting',
    description: 'The state after the retry',
  })
  state!: string;
}
