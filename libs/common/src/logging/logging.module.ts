import { activeTraceId } from '../tracing/trace-context';
import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { destination } from 'pino';
import pretty from 'pino-pretty';
import type { Options as PinoHttpOptions } from 'pino-http';
import { REDACTED_LOG_PATHS } from '@app/config';

/**
 * The path without its query string, and without the IPN URL's secret segment: the URL the
 * gateway calls must not be learnt from the logs.
 */
export function loggablePath(url: string): string {
  return url.split('?')[0].replace(/^\/v1\/ipn\/[^/]+/, '/v1/ipn/[redacted]');
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The caller's X-Request-Id when it is sane, else a new uuid. */
export function requestIdOf(req: Pick<IncomingMessage, 'headers'>): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** One readable line per record (time, level, app, message, then the fields), for a terminal. */
function prettyLines() {
  return pretty({
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
    sync: true,
  });
}

/** JSON logs with a request id (taken from X-Request-Id when sane) and secrets redacted. */
@Module({})
export class LoggingModule {
  /**
   * `configToken` names a provider whose value carries the validated `logLevel`. `unlogged` lists
   * route patterns that get no request log and no per-request logger at all (hot paths whose
   * every request is recorded elsewhere).
   */
  static forRoot(name: string, configToken: symbol, unlogged: string[] = []): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [configToken],
          useFactory: ({
            logLevel,
            logFile,
            logFormat,
          }: {
            logLevel: string;
            logFile?: string | null;
            logFormat?: 'json' | 'pretty';
          }) => {
            const options: PinoHttpOptions = {
              name,
              level: logLevel,
              // Log lines written inside a traced request or job carry its trace id.
              mixin: () => {
                const traceId = activeTraceId();
                return traceId ? { trace_id: traceId } : {};
              },
              redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
              genReqId: requestIdOf,
              autoLogging: {
                ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health'),
              },
              serializers: {
                req: (req: { id: string; method: string; url: string }) => ({
                  id: req.id,
                  method: req.method,
                  url: loggablePath(req.url),
                }),
              },
            };
            return {
              exclude: unlogged.map((path) => ({ path, method: RequestMethod.ALL })),
              // Several processes may append to one file: each line is written whole (JSON, always).
              pinoHttp: logFile
                ? [options, destination({ dest: logFile, append: true, mkdir: true })]
                : logFormat === 'pretty'
                  ? [options, prettyLines()]
                  : options,
            };
          },
        }),
      ],
    };
  }
}
