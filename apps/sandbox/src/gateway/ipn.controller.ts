import { Controller, Get, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AuthenticatedRequest, BearerGuard } from '../auth/bearer.guard';
import { sendGatewayReply } from '../http/gateway-reply';
import { bindBody } from '../http/raw-body';
import { IpnRegistry } from '../ipn/ipn-registry.service';

@Controller('pesapalv3/api/URLSetup')
@UseGuards(BearerGuard)
export class IpnController {
  constructor(private readonly ipns: IpnRegistry) {}

  @Post('RegisterIPN')
  register(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): void {
    sendGatewayReply(res, this.ipns.register(req.merchant.uid, bindBody(req)));
  }

  @Get('GetIpnList')
  list(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): void {
    sendGatewayReply(res, this.ipns.list(req.merchant.uid));
  }
}
