import { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'nestjs-pino';
import { requestIdOf } from '../logging/logging.module';
import { logRequests } from '../logging/request-log';
import { WiringAtDebug } from '../logging/wiring-at-debug';
import { withHooksExceptOnHotRoutes } from './hot-routes';
import { holdRequestContextWhileServing } from './request-context';

export interface FastifyAppOptions {
  /** Largest accepted request body; the IPN route in particular must not accept huge bodies. */
  bodyLimit?: number;
  bufferLogs?: boolean;
}

/** Every HTTP app of ours runs on Fastify, with pino as the Nest logger and clean shutdown hooks. */
export async function createFastifyApp(
  module: Type<unknown>,
  options: FastifyAppOptions = {},
): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    module,
    // Fastify names each request before pino-http sees it: the same rule, so the logged request id
    // is the caller's X-Request-Id when given.
    new HotRoutesAdapter({
      bodyLimit: options.bodyLimit ?? 64 * 1024,
      trustProxy: true,
      genReqId: requestIdOf,
      // The router's own refusals (a malformed or overlong path segment) in the service's
      // error shape, like every other 4xx.
      // What Node's HTTP parser refuses before any route (request line and headers over 16 KiB,
      // not HTTP at all), in the same shape; Fastify's own answer has none.
      clientErrorHandler: answerClientError,
      // Answered in the service's error shape instead (answerWhileStopping).
      return503OnClosing: false,
      frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
        const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
        void reply.code(status).send({
          error: {
            code: 'bad_request',
            message:
              error.code === 'FST_ERR_MAX_PARAM_LENGTH'
                ? 'a path segment is too long'
                : 'the URL is not valid (a malformed percent-encoding?)',
          },
        });
      },
    }),
    { bufferLogs: options.bufferLogs ?? true, abortOnError: false },
  );
  useAppLogger(app);
  logRequests(app.getHttpAdapter().getInstance());
  answerWhileStopping(app.getHttpAdapter().getInstance());
  closeOnSignals(app);
  return app;
}

/** What a request gets once its process is stopping: another instance takes it. */
const STOPPING_ANSWER = JSON.stringify({
  error: {
    code: 'service_stopping',
    message: 'this instance is stopping: send the request again (another instance takes it)',
  },
});

/**
 * Once the server is closing, a request that arrives on a kept-alive connection is answered 503
 * in the service's error shape, with Retry-After and `Connection: close` (so the client's next
 * request opens a connection to an instance that is not stopping). Fastify's own answer
 * (return503OnClosing) has neither. The HTTP server's request listener is swapped when the close
 * begins, so no route pays a hook for it before then (the checkouts and the IPN route run none
 * they do not need); requests already in flight finish as they were.
 */
function answerWhileStopping(fastify: FastifyInstance): void {
  fastify.addHook('preClose', async () => {
    const server = fastify.server;
    server.removeAllListeners('request');
    server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(503, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(STOPPING_ANSWER),
        'retry-after': '1',
        connection: 'close',
      });
      response.end(STOPPING_ANSWER);
    });
  });
}

/**
 * Nest's adapter registers @fastify/middie, which runs Nest middleware (pino-http's
 * request-bound logger) on every request, when it starts: its hook skips every hot route
 * (hot-routes.ts), whose request log line, if it needs one, is logRequests' as for every route.
 * The other routes hold the request context storages while they are served (request-context.ts).
 */
class HotRoutesAdapter extends FastifyAdapter {
  private middieRegistered = false;

  override async init(): Promise<void> {
    // Nest calls init again in app.init(), where the adapter registers nothing.
    if (this.middieRegistered) return super.init();
    this.middieRegistered = true;
    // Before middie's hook: a request's hold comes before its logger's store.
    await holdRequestContextWhileServing(this.getInstance());
    // middie's one onRequest hook runs the middleware.
    await withHooksExceptOnHotRoutes(this.getInstance(), null, ['onRequest'], () => super.init());
  }
}

/**
 * How long a stopping process waits for its requests in flight (a long export, say) before it
 * cuts their connections: well inside Kubernetes' grace period (45 s, less the 10 s preStop
 * sleep), so the modules below are always closed before SIGKILL could come.
 */
const DRAIN_DEADLINE_MS = 25_000;

/**
 * On SIGTERM (Kubernetes stopping the pod), SIGINT or SIGHUP the HTTP server closes first: it
 * takes no new connection, finishes the requests in flight (for at most DRAIN_DEADLINE_MS) and
 * answers one arriving on an open keep-alive connection 503 (answerWhileStopping). Only then
 * are the modules closed (queues, Redis, the database): Nest's own shutdown hooks close them
 * before the server, so a request still in flight could meet a closed connection. Then the
 * signal is raised again, as Nest does.
 */
function closeOnSignals(app: NestFastifyApplication): void {
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  const server = app.getHttpAdapter().getInstance();
  const forget = (): void => {
    for (const signal of signals) process.removeListener(signal, close);
  };
  const drained = (): Promise<void> => {
    let deadline: NodeJS.Timeout | undefined;
    const cut = new Promise<void>((resolve) => {
      deadline = setTimeout(() => {
        server.server.closeAllConnections();
        resolve();
      }, DRAIN_DEADLINE_MS);
      deadline.unref();
    });
    return Promise.race([server.close().catch(() => undefined), cut]).finally(() =>
      clearTimeout(deadline),
    );
  };
  const close = (signal: NodeJS.Signals): void => {
    forget();
    void drained()
      .then(() => app.close())
      .finally(() => process.kill(process.pid, signal));
  };
  for (const signal of signals) process.once(signal, close);
  // An app closed by its owner (a test, the supervisor) leaves no listener behind.
  server.addHook('onClose', async () => forget());
}

function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify({
    error: tooLarge
      ? {
          code: 'request_headers_too_large',
          message: 'the request line and headers are larger than 16 KiB',
        }
      : { code: 'bad_request', message: 'the request could not be read as HTTP' },
  });
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Nest logs through pino, its wiring (modules, routes) at debug only. */
export function useAppLogger(app: INestApplication): void {
  try {
    app.useLogger(new WiringAtDebug(app.get(Logger)));
  } catch {
    // Apps without the LoggingModule (unit fixtures) keep Nest's default logger.
  }
}
