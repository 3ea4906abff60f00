import 'reflect-metadata';
import { loadOrExit, loadSandboxConfig } from '@app/config';
import { createFastifyApp } from '@app/common';
import { SandboxModule } from './sandbox.module';

async function bootstrap(): Promise<void> {
  const config = loadOrExit(() => loadSandboxConfig());
  const app = await createFastifyApp(SandboxModule, { bufferLogs: false });
  await app.listen(config.port, '0.0.0.0');
  process.stdout.write(
    `${JSON.stringify({ level: 30, name: 'sandbox', msg: `sandbox gateway on http://127.0.0.1:${config.port}/pesapalv3/api` })}\n`,
  );
}

void bootstrap();
