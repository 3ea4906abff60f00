export * from './order.repository';
