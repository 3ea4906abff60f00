import { activeTraceId } from '../tracing/trace-context';
import { DynamicModule, Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { Logger, pino } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import { REDACTED_LOG_PATHS } from '@app/config';
import { logDestination } from './log-lines';
import { loggedRequest } from './request-log';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The caller's X-Request-Id when it is sane, else a new uuid. */
export function requestIdOf(req: Pick<IncomingMessage, 'headers'>): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** How an app's configuration says to log. */
export interface LogSettings {
  logLevel: string;
  logFile?: string | null;
  logFormat?: 'json' | 'pretty';
}

/**
 * What a process says outside Nest (a configuration warning, where it listens), in the same
 * shape and to the same place as its app's records.
 */
export function processLogger(name: string, settings: LogSettings): Logger {
  return pino(
    {
      name,
      level: settings.logLevel,
      redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
    },
    logDestination(settings),
  );
}

/** JSON logs with a request id (taken from X-Request-Id when sane) and secrets redacted. */
@Module({})
export class LoggingModule {
  /**
   * `configToken` names a provider whose value carries the validated `logLevel`. Hot routes
   * (http/hot-routes.ts) that do not need the request log get no request log line and no
   * per-request logger.
   */
  static forRoot(name: string, configToken: symbol): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [configToken],
          useFactory: (settings: LogSettings) => {
            const options: PinoHttpOptions = {
              name,
              level: settings.logLevel,
              // Log lines written inside a traced request or job carry its trace id.
              mixin: () => {
                const traceId = activeTraceId();
                return traceId ? { trace_id: traceId } : {};
              },
              redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
              genReqId: requestIdOf,
              // The request log line is logRequests' (request-log.ts): pino-http gives the other
              // routes their request-bound logger only.
              autoLogging: false,
              serializers: {
                req: loggedRequest,
                // The status only: the answer's headers are the same on every request.
                res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
              },
            };
            const destination = logDestination(settings);
            return { pinoHttp: destination ? [options, destination] : options };
          },
        }),
      ],
    };
  }
}
