import { Controller, Get, Header, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoutes, CallerOperator, Requires } from '../access-guards';
import { auditActorOf, Operator } from '../operator';
import { OriginRequest, originOf } from '../../http/request-origin';
import { AuditTrail } from '../audit-trail';
import { AuditQuery, AuditVerifyQuery } from './audit.dto';
import { AuditListService } from './audit-list.service';
import { AuditPageResponse, AuditVerificationResponse } from './audit-responses';

/** The audit trail, read-only; every read of it is itself written to it. */
@ApiTags('admin: audit')
@ApiBearerAuth()
@AdminRoutes()
@Requires('audit:read')
@Controller('v1/admin/audit')
export class AuditController {
  constructor(
    private readonly trail: AuditTrail,
    private readonly entries: AuditListService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'The audit trail, newest first (actor, action, target, request id, from, to)',
  })
  @ApiOkResponse({ type: AuditPageResponse })
  @Header('Cache-Control', 'no-store')
  async list(
    @Query() query: AuditQuery,
    @CallerOperator() caller: Operator,
    @Req() request: OriginRequest,
  ) {
    const page = await this.entries.list(query);
    const { cursor: _cursor, ...filters } = query;
    await this.trail.record({
      actor: auditActorOf(caller),
      action: 'audit.read',
      after: { filters, rows: page.items.length },
      outcome: 'succeeded',
      status: 200,
      origin: originOf(request),
    });
    return page;
  }

  @Get('verify')
  @ApiOperation({
    summary:
      'Check the whole chain: ok, or the first row changed, removed or inserted behind the service',
  })
  @ApiOkResponse({ type: AuditVerificationResponse })
  @Header('Cache-Control', 'no-store')
  async verify(
    @Query() query: AuditVerifyQuery,
    @CallerOperator() caller: Operator,
    @Req() request: OriginRequest,
  ) {
    const anchor =
      query.seq !== undefined && query.hash !== undefined
        ? { seq: query.seq, hash: query.hash }
        : undefined;
    const verification = await this.trail.verify(anchor);
    await this.trail.record({
      actor: auditActorOf(caller),
      action: 'audit.verified',
      after: { ...verification },
      outcome: 'succeeded',
      status: 200,
      origin: originOf(request),
    });
    return verification;
  }
}
