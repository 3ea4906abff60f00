export * from './shop-client';
export * from './order-outcome';
export * from './errors';
export * from './webhooks';
export type { components, paths, operations } from './api-types';
