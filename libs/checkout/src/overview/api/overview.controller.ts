import { Controller, Get, Header, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoutes, Requires } from '../../operators/access-guards';
import { OverviewQuery } from './overview.dto';
import { OverviewResponse } from './overview-responses';
import { OverviewService } from './overview.service';

@ApiTags('admin: overview')
@ApiBearerAuth()
@AdminRoutes()
@Requires('admin:read')
@Controller('v1/admin')
export class OverviewController {
  constructor(private readonly overviews: OverviewService) {}

  @Get('overview')
  @ApiOperation({
    summary:
      'Checkouts, outcomes, failures by reason, notification lag, webhook attempts and refunds over the last hour, day or month',
  })
  @ApiOkResponse({ type: OverviewResponse })
  @Header('Cache-Control', 'no-store')
  overview(@Query() query: OverviewQuery) {
    return this.overviews.overview(query.window ?? 'day', query.tz);
  }
}
