export * from './order.repository';
export * from './postgres-token-store';
