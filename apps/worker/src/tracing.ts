import { startTracing } from '@app/common/tracing/start-tracing';

// Imported first by main.ts: instrumentation must patch pg, http and Nest before they load.
startTracing('pesapal-checkout-worker');
