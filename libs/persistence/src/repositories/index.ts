export * from './order.repository';
export * from './hydrate';
