import './tracing';
import 'reflect-metadata';
import { loadOrExit, loadServiceConfig } from '@app/config';
import { createApiApp } from './api-app';
import { listenOrExit } from '@app/common';

async function bootstrap(): Promise<void> {
  const config = loadOrExit(() => loadServiceConfig());
  for (const warning of config.warnings) {
    process.stdout.write(`${JSON.stringify({ level: 40, name: 'api', msg: warning })}\n`);
  }
  const app = await createApiApp();
  await listenOrExit(app, config.port, config.host, 'PORT');
  process.stdout.write(
    `${JSON.stringify({ level: 30, name: 'api', msg: `api listening on http://127.0.0.1:${config.port} (docs at /docs)` })}\n`,
  );
}

void bootstrap();
