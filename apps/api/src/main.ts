import 'reflect-metadata';
import { loadOrExit, loadServiceConfig } from '@app/config';
import { createApiApp } from './api-app';

async function bootstrap(): Promise<void> {
  const config = loadOrExit(() => loadServiceConfig());
  const app = await createApiApp();
  await app.listen(config.port, '0.0.0.0');
  process.stdout.write(
    `${JSON.stringify({ level: 30, name: 'api', msg: `api listening on http://127.0.0.1:${config.port} (docs at /docs)` })}\n`,
  );
}

void bootstrap();
