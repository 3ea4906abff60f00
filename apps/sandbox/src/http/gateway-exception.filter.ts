import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TRANSPORT_MESSAGES } from '../gateway-choices';
import { GatewayHttpError, messageOnly, sendGatewayReply } from './gateway-reply';
import { GATEWAY_OPERATIONS, operationAtPath } from './route-table';

/**
 * Renders the gateway's own answers (auth, media type) and its transport errors: unknown path
 * 404, known path with the wrong method 405, anything else 500; all with a message-only body.
 */
@Catch()
export class GatewayExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('SandboxErrors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const res = http.getResponse<FastifyReply>();
    if (exception instanceof GatewayHttpError) return sendGatewayReply(res, exception.reply);
    if (exception instanceof NotFoundException) {
      const operation = operationAtPath(req.url);
      if (operation && GATEWAY_OPERATIONS[operation].method !== req.method) {
        return sendGatewayReply(
          res,
          messageOnly(405, TRANSPORT_MESSAGES.methodNotAllowed(req.method)),
        );
      }
      const uri = `${req.protocol}://${req.host}${req.url}`;
      return sendGatewayReply(res, messageOnly(404, TRANSPORT_MESSAGES.notFound(uri)));
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      return sendGatewayReply(res, messageOnly(exception.getStatus(), exception.message));
    }
    this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    sendGatewayReply(res, messageOnly(500, TRANSPORT_MESSAGES.serverError));
  }
}
