export * from './env-parsers';
export * from './service-config';
export * from './sandbox-config';
export * from './redaction';
export * from './service-config.module';
export * from './exit-on-bad-config';
