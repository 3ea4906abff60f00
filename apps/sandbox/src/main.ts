import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { loadOrExit, loadSandboxConfig } from '@app/config';
import { createSandboxApp, sandboxConfigOf } from './sandbox-app';
import { listenOrExit, processLogger } from '@app/common';

async function bootstrap(): Promise<void> {
  const config = loadOrExit(() => loadSandboxConfig());
  const app = await createSandboxApp(config);
  await listenOrExit(app, config.port, config.host, 'SANDBOX_PORT');
  const { port } = app.getHttpServer().address() as AddressInfo;
  // With port 0 the advertised redirect_url must name the port actually chosen.
  if (config.port === 0 && !process.env.SANDBOX_PUBLIC_URL) {
    sandboxConfigOf(app).publicUrl = `http://127.0.0.1:${port}`;
  }
  processLogger('sandbox', config).info(
    `sandbox gateway on http://127.0.0.1:${port}/pesapalv3/api (control API ${config.controlEnabled ? 'on' : 'off'})`,
  );
}

void bootstrap();
