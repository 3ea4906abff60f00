import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApiUnderContract } from '../support/api-contract';

export interface RunningApi {
  app: NestFastifyApplication;
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Boots the real api (as main.ts builds it) on a free port. The environment is applied first and the module is
 * loaded afterwards, because configuration is read from process.env when the app is built.
 */
export async function bootApi(env: Record<string, string>): Promise<RunningApi> {
  Object.assign(process.env, env);
  const app = await createApiUnderContract();
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  if (!address || typeof address === 'string') throw new Error('api did not bind a TCP port');
  return {
    app,
    baseUrl: `http://127.0.0.1:${address.port}`,
    close: () => app.close(),
  };
}

export interface Readiness {
  status: number;
  body: {
    status?: string;
    info?: Record<string, { status: string; message?: string }>;
    error?: Record<string, { status: string; message?: string }>;
  };
}

export async function readiness(baseUrl: string): Promise<Readiness> {
  const response = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: (await response.json()) as Readiness['body'] };
}

/** Polls readiness until it answers `status`; returns that answer or fails with the last one. */
export async function waitForReadiness(
  baseUrl: string,
  status: number,
  timeoutMs = 15_000,
): Promise<Readiness> {
  const deadline = Date.now() + timeoutMs;
  let last: Readiness | undefined;
  while (Date.now() < deadline) {
    last = await readiness(baseUrl);
    if (last.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `readiness stayed ${last?.status} (${JSON.stringify(last?.body)}), wanted ${status}`,
  );
}
