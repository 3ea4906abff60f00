import type { LoggerService } from '@nestjs/common';

/**
 * Nest's own start-up records: every module initialised, every controller and route mapped, the
 * application starting and started. Over a hundred lines per app, worth reading only when the
 * wiring itself is in question; each app says in one line where it listens instead.
 */
export const NEST_WIRING_CONTEXTS: ReadonlySet<string> = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/** The app's logger, with Nest's wiring records moved from info down to debug (LOG_LEVEL=debug). */
export class WiringAtDebug implements LoggerService {
  constructor(private readonly logger: LoggerService) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    // Nest passes the context (the class that logs) last.
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && NEST_WIRING_CONTEXTS.has(context) && this.logger.debug) {
      this.logger.debug(message, ...optionalParams);
    } else {
      this.logger.log(message, ...optionalParams);
    }
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.logger.error(message, ...optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.logger.warn(message, ...optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.logger.debug?.(message, ...optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.logger.verbose?.(message, ...optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    (this.logger.fatal ?? this.logger.error).call(this.logger, message, ...optionalParams);
  }
}
