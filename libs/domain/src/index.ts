export * from './money';
export * from './identifiers';
export * from './payment-outcome';
export * from './order-status';
export * from './refund-status';
export * from './poll-schedule';
export * from './billing-address';
