import { AddressInfo, createConnection, createServer } from 'node:net';

/** True when something accepts TCP connections on host:port within the timeout. */
export function portAnswers(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export interface TestRun {
  runId: string;
  adminDatabaseUrl: string;
  databaseUrl: string;
  databaseName: string;
  queueBackend: 'redis' | 'postgres';
  redisUrl: string;
  queuePrefix: string;
  embeddedPostgresDir?: string;
  /** Log files and recorded secrets for the secret audit (test/support/secret-audit.ts). */
  auditDir: string;
}

/** The global setup writes the run's description here; setup-env and teardown read it back. */
export const TEST_RUN_ENV = 'PESAPAL_TEST_RUN';

/**
 * How long a test's PostgreSQL connection may take to be made (DATABASE_CONNECT_TIMEOUT_MS): CI
 * runs two passes on two cores, where a new backend can take longer than production's 5 s.
 */
export const TEST_CONNECT_TIMEOUT_MS = 20_000;

export function currentTestRun(): TestRun {
  const raw = process.env[TEST_RUN_ENV];
  if (!raw) throw new Error('no test run: jest globalSetup did not run');
  return JSON.parse(raw) as TestRun;
}

/** A TCP port nothing listens on right now (for servers the tests start themselves). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
