export * from './queue-backend';
export * from './redis-client';
export * from './queue-infrastructure.module';
export * from './job-catalogue';
export * from './queue-errors';
export * from './queue-worker';
