import '@app/common/runtime/heap-policy';
import './tracing';
import 'reflect-metadata';
import { loadOrExit, loadServiceConfig } from '@app/config';
import { createApiApp } from './api-app';
import { listenOrExit, processLogger } from '@app/common';

async function bootstrap(): Promise<void> {
  const config = loadOrExit(() => loadServiceConfig());
  const log = processLogger('api', config);
  for (const warning of config.warnings) log.warn(warning);
  const app = await createApiApp();
  await listenOrExit(app, config.port, config.host, 'PORT');
  log.info(`api listening on http://127.0.0.1:${config.port} (docs at /docs)`);
}

void bootstrap();
