import 'reflect-metadata';
import { loadOrExit, loadServiceConfig } from '@app/config';
import { createFastifyApp } from '@app/common';
import { ApiModule } from './api.module';

async function bootstrap(): Promise<void> {
  const config = loadOrExit(() => loadServiceConfig());
  const app = await createFastifyApp(ApiModule);
  await app.listen(config.port, '0.0.0.0');
  process.stdout.write(
    `${JSON.stringify({ level: 30, name: 'api', msg: `api listening on http://127.0.0.1:${config.port}` })}\n`,
  );
}

void bootstrap();
