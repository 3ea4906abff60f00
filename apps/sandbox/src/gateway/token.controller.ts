import { Controller, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TokenService } from '../auth/token.service';
import { sendGatewayReply } from '../http/gateway-reply';
import { bindBody } from '../http/raw-body';

/** Token issue: the one endpoint without a bearer header. */
@Controller('pesapalv3/api/Auth')
export class TokenController {
  constructor(private readonly tokens: TokenService) {}

  @Post('RequestToken')
  requestToken(@Req() req: FastifyRequest, @Res() res: FastifyReply): void {
    sendGatewayReply(res, this.tokens.requestToken(bindBody(req)));
  }
}
