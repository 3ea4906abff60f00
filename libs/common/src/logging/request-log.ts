import type { FastifyInstance } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { hotRouteSkips } from '../http/hot-routes';

/**
 * The path without its query string, and without the IPN URL's secret segment: the URL the
 * gateway calls must not be learnt from the logs.
 */
export function loggablePath(url: string): string {
  return url.split('?')[0].replace(/^\/v1\/ipn\/[^/]+/, '/v1/ipn/[redacted]');
}

/** A request as log lines name it (the request log line's `req`). */
export interface LoggedRequest {
  id: string;
  method: string;
  url: string;
}

/** A Fastify request, or pino's serialized one: how log lines name it. */
export function loggedRequest(request: LoggedRequest): LoggedRequest {
  return { id: request.id, method: request.method, url: loggablePath(request.url) };
}

/**
 * Whether the app's logger writes info lines (Nest's `log`): a line below its level need not be
 * built. False before the logger is made (nothing would write it).
 */
export function infoLinesLogged(): boolean {
  return PinoLogger.root?.isLevelEnabled('info') ?? false;
}

/**
 * The request log line, one per answered request, from one Fastify hook for every route: what,
 * how it ended and how long it took (`req`, `res.statusCode`, `responseTime` in ms; "request
 * errored" for a 5xx). Health checks write none, nor a hot route that does not need it. Written
 * through the app's root logger (its level, redaction and trace id), so a route pays for no
 * per-request logger to have its line: pino-http, which Nest middleware runs on the other routes
 * for their request-bound logger, writes none.
 */
export function logRequests(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    if (
      infoLinesLogged() &&
      !request.url.startsWith('/health') &&
      !hotRouteSkips(request, 'requestLog')
    ) {
      // The raw request and answer, as pino-http logs them: the logger's serializers (its `req`
      // and `res`) say what of them is written.
      (request.raw as { id?: string }).id = request.id;
      PinoLogger.root.info(
        { req: request.raw, res: reply.raw, responseTime: Math.round(reply.elapsedTime) },
        reply.statusCode >= 500 ? 'request errored' : 'request completed',
      );
    }
    done();
  });
}
