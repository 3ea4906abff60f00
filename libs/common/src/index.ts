export * from './logging/logging.module';
export * from './health/health.module';
export * from './health/redis.health';
export * from './http/create-fastify-app';
export * from './http/listen';
export * from './metrics/metric';
export * from './metrics/service-metrics';
export * from './metrics/metrics.module';
