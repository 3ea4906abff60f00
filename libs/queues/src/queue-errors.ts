import { Logger } from '@nestjs/common';

interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * BullMQ prints connection errors to stderr when nobody listens, once per reconnect attempt.
 * Route them to our logger instead, each distinct message once until it changes.
 */
export function logQueueErrorsOnce(emitter: ErrorEmitter, logger: Logger, what: string): void {
  let last = '';
  emitter.on('error', (error: Error) => {
    if (error.message !== last) logger.warn(`${what}: ${error.message}`);
    last = error.message;
  });
}
