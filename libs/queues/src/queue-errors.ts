import { Logger } from '@nestjs/common';

interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
}

/**
 * BullMQ and ioredis report a connection error once per reconnect attempt (BullMQ on stderr when
 * nobody listens). Route them to our logger instead, each distinct message once until it changes,
 * and say so once the connection is ready again.
 */
export function logQueueErrorsOnce(emitter: ErrorEmitter, logger: Logger, what: string): void {
  let last = '';
  emitter.on('error', (error: Error) => {
    if (error.message !== last) logger.warn(`${what}: ${error.message}`);
    last = error.message;
  });
  emitter.on('ready', () => {
    if (last) logger.log(`${what}: connection restored`);
    last = '';
  });
}
