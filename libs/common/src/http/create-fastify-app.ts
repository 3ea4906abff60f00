import { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';

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
    new FastifyAdapter({ bodyLimit: options.bodyLimit ?? 64 * 1024, trustProxy: true }),
    { bufferLogs: options.bufferLogs ?? true, abortOnError: false },
  );
  useAppLogger(app);
  app.enableShutdownHooks();
  return app;
}

export function useAppLogger(app: INestApplication): void {
  try {
    app.useLogger(app.get(Logger));
  } catch {
    // Apps without the LoggingModule (unit fixtures) keep Nest's default logger.
  }
}
