export * from './logging/logging.module';
export * from './health/health.module';
export * from './health/redis.health';
export * from './http/create-fastify-app';
export * from './http/listen';
