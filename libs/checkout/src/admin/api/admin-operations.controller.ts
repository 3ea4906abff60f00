import { cutText } from '@app/domain';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { QUEUE_NAMES } from '@app/queues';
import { text, URL_MAX_LENGTH, UUID } from '../../http/documented-schemas';
import { ApiKeyIdentity } from '../../http/api-keys';
import { AdminRoutes, CallerKey, Requires } from '../../operators/access-guards';
import { IpnRegistrationService, loggableIpnUrl } from '../../orders/ipn-registration.service';
import { DeadLettersQuery, ListNotificationsQuery, ReconcileBody } from './admin.dto';
import {
  AdminDeadLetterDetail,
  AdminDeadLetterPage,
  AdminDeadLetterReplay,
} from './dead-letters/dead-letter-responses';
import {
  AdminIpnRegistrationList,
  AdminNotification,
  AdminNotificationPage,
  AdminNotificationReplay,
  type IpnRegistrationListAnswer,
} from './notification-responses';
import {
  AdminReconciliationReport,
  AdminReconciliationReportList,
} from './reconciliation-responses';
import { DeadLetterService, JOB_ID_MAX_LENGTH } from './dead-letters/dead-letter.service';
import { NotificationInboxService } from './notification-inbox.service';
import { ReconciliationService } from '../reconciliation.service';

/** A notification's id: a uuid (anything else is 404, as no notification has it). */
const NOTIFICATION_ID_PARAM = { name: 'id', ...UUID };
/** A queue's name (anything else is 404 queue_not_found). */
const QUEUE_PARAM = { name: 'queue', type: String, enum: QUEUE_NAMES, example: 'order-sync' };
/** A job's id in its queue (no job has a longer one). */
const JOB_ID_PARAM = { name: 'jobId', ...text(JOB_ID_MAX_LENGTH), example: '42' };

/** The plumbing an operator inspects: IPN URLs, the notification inbox, dead jobs, reconciliation. */
@ApiTags('admin: operations')
@ApiBearerAuth()
@AdminRoutes()
@Requires('admin:read')
@Controller('v1/admin')
export class AdminOperationsController {
  constructor(
    private readonly registrations: IpnRegistrationService,
    private readonly inbox: NotificationInboxService,
    private readonly deadLetters: DeadLetterService,
    private readonly reconciliation: ReconciliationService,
  ) {}

  /**
   * The path's secret segment is a credential (whoever knows it can make us look orders up), so
   * it is not shown; `current` says whether a row is the URL this deployment registers.
   */
  @Get('ipn-registrations')
  @ApiOperation({
    summary: 'The IPN URLs registered at the gateway, and which one this deployment uses',
  })
  @ApiOkResponse({ type: AdminIpnRegistrationList })
  async ipnRegistrations(): Promise<IpnRegistrationListAnswer> {
    const rows = await this.registrations.list();
    return {
      items: rows.map((row) => ({
        // The deployment's configured URL: as long as a URL we take anywhere, at most.
        url: cutText(loggableIpnUrl(row.url), URL_MAX_LENGTH),
        current: this.registrations.isCurrent(row),
        account: row.gatewayAccount,
        method: row.method,
        ipn_id: row.ipnId,
        gateway_created_at: row.gatewayCreatedAt?.toISOString() ?? null,
        created_at: row.createdAt.toISOString(),
      })),
    };
  }

  @Get('notifications')
  @ApiOperation({ summary: 'Browse the stored IPN notifications, newest first' })
  @ApiOkResponse({ type: AdminNotificationPage })
  notifications(@Query() query: ListNotificationsQuery) {
    return this.inbox.list(query);
  }

  @Get('notifications/:id')
  @ApiOperation({ summary: 'One stored IPN notification, with its payload and processing state' })
  @ApiParam(NOTIFICATION_ID_PARAM)
  @ApiOkResponse({ type: AdminNotification })
  notification(@Param('id') id: string) {
    return this.inbox.get(id);
  }

  @Post('notifications/:id/replay')
  @Requires('operations:write')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a stored notification through verification again' })
  @ApiParam(NOTIFICATION_ID_PARAM)
  @ApiAcceptedResponse({ type: AdminNotificationReplay })
  replayNotification(@Param('id') id: string, @CallerKey() caller: ApiKeyIdentity) {
    return this.inbox.replay(id, caller);
  }

  @Get('dead-letters')
  @ApiOperation({ summary: 'Jobs whose retries ran out, per queue, most recently failed first' })
  @ApiOkResponse({ type: AdminDeadLetterPage })
  @ApiNotFoundResponse({ description: 'No queue by that name (queue_not_found)' })
  deadLetterList(@Query() query: DeadLettersQuery) {
    return this.deadLetters.list(query.queue, query.limit, query.offset);
  }

  @Get('dead-letters/:queue/:jobId')
  @ApiOperation({ summary: 'One dead job, with its data and stack traces' })
  @ApiParam(QUEUE_PARAM)
  @ApiParam(JOB_ID_PARAM)
  @ApiOkResponse({ type: AdminDeadLetterDetail })
  deadLetter(@Param('queue') queue: string, @Param('jobId') jobId: string) {
    return this.deadLetters.inspect(queue, jobId);
  }

  @Post('dead-letters/:queue/:jobId/replay')
  @Requires('operations:write')
  @HttpCode(202)
  @ApiOperation({ summary: 'Retry a dead job, its attempts reset' })
  @ApiParam(QUEUE_PARAM)
  @ApiParam(JOB_ID_PARAM)
  @ApiAcceptedResponse({ type: AdminDeadLetterReplay })
  @ApiConflictResponse({ description: 'job_not_failed: the job is not in the failed set' })
  replayDeadLetter(@Param('queue') queue: string, @Param('jobId') jobId: string) {
    return this.deadLetters.replay(queue, jobId);
  }

  /** Runs a reconciliation now and answers its report (also stored). Changes nothing. */
  @Post('reconcile')
  @Requires('operations:write')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Compare recent orders with the gateway now and check the invariants; repairs nothing',
  })
  @ApiOkResponse({ type: AdminReconciliationReport, description: 'The report, also stored' })
  reconcile(@Body() body: ReconcileBody, @CallerKey() caller: ApiKeyIdentity) {
    return this.reconciliation.run('admin', body.since_hours ?? 48, caller.name);
  }

  @Get('reconciliation-reports')
  @ApiOperation({ summary: 'The 20 latest reconciliation reports, newest first' })
  @ApiOkResponse({ type: AdminReconciliationReportList })
  async reports() {
    return { items: await this.reconciliation.latest() };
  }

  @Get('reconciliation-reports/:id')
  @ApiOperation({ summary: 'One reconciliation report' })
  @ApiParam({ name: 'id', ...UUID, description: "The report's id (anything else is 404)" })
  @ApiOkResponse({ type: AdminReconciliationReport })
  report(@Param('id') id: string) {
    return this.reconciliation.get(id);
  }
}
