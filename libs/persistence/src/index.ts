export * from './data-source-options';
export * from './migrate-with-lock';
export * from './persistence.module';
export * from './entities';
export * from './repositories';
export * from './prepared-statement';
export * from './unique-violation';
export * from './sql-list';
