import '@app/common/runtime/heap-policy';
import './tracing';
import 'reflect-metadata';
import { setPriority } from 'node:os';
import { loadOrExit, loadServiceConfig } from '@app/config';
import { createFastifyApp, listenOrExit, processLogger } from '@app/common';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  const config = loadOrExit(() => loadServiceConfig());
  const log = processLogger('worker', config);
  for (const warning of config.warnings) log.warn(warning);
  // Verification may lag; acknowledgements may not. Where both share cores, the api goes first.
  if (config.workerNice > 0) setPriority(config.workerNice);
  const app = await createFastifyApp(WorkerModule);
  await listenOrExit(app, config.workerPort, config.host, 'WORKER_PORT');
  log.info(
    `worker health on http://127.0.0.1:${config.workerPort}/health/ready (queues on ${config.queueBackend})`,
  );
}

void bootstrap();
