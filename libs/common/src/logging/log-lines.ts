import { destination, DestinationStream } from 'pino';
import pretty from 'pino-pretty';

/**
 * Where a process's log records go and in what shape: appended to LOG_FILE (JSON, always),
 * one readable line each for a terminal (LOG_FORMAT=pretty), or JSON on stdout (undefined).
 * No Nest here: the example shop, which is no Nest app, writes its lines the same way.
 */
export function logDestination(settings: {
  logFile?: string | null;
  logFormat?: 'json' | 'pretty';
}): DestinationStream | undefined {
  // Several processes may append to one file: each line is written whole.
  if (settings.logFile) return destination({ dest: settings.logFile, append: true, mkdir: true });
  return settings.logFormat === 'pretty' ? prettyLines() : undefined;
}

interface RequestRecord {
  req: { method?: string; url?: string };
  res: { statusCode?: number };
  responseTime: number;
}

function isRequestRecord(
  log: Record<string, unknown>,
): log is Record<string, unknown> & RequestRecord {
  return (
    typeof log.req === 'object' &&
    log.req !== null &&
    typeof log.res === 'object' &&
    log.res !== null &&
    typeof log.responseTime === 'number'
  );
}

/**
 * A finished request reads `POST /pesapalv3/api/Auth/RequestToken 200 3ms`; any other record its
 * message. The request's own fields are not repeated after it (a record logged inside a request
 * carries them too: its trace id says which request it belongs to).
 */
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  if (!isRequestRecord(log)) return String(log[messageKey] ?? '');
  const { req, res, responseTime } = log;
  return `${req.method} ${req.url} ${res.statusCode} ${Math.round(responseTime)}ms`;
}

/** One readable line per record (time, level, app, message, then the fields), for a terminal. */
export function prettyLines(): DestinationStream {
  return pretty({
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,req,res,responseTime',
    messageFormat: prettyMessage,
    singleLine: true,
    sync: true,
  });
}
