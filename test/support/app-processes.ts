import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';

/**
 * The api and the worker as processes of their own, as they run in production, for the suites
 * that stop, kill or multiply them (replicas, a restored database, a wiped Redis).
 */

const ROOT = join(__dirname, '..', '..');

/** Starts the api or the worker with `env` over this run's environment; its output is ignored. */
export function startAppProcess(app: 'api' | 'worker', env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['-r', '@swc-node/register', `apps/${app}/src/main.ts`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
}

/** Whether the api or worker at `url` says it is ready (GET /health/ready answers 200). */
export function isReady(url: string): Promise<boolean> {
  return request(url)
    .get('/health/ready')
    .then((answer) => answer.status === 200)
    .catch(() => false);
}

/**
 * SIGTERM to each, as Kubernetes sends; resolves once every one has ended. With `killAfterMs`, one
 * still running that long after is sent SIGKILL.
 */
export async function stopAll(
  children: readonly ChildProcess[],
  options: { killAfterMs?: number } = {},
): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const killer =
            options.killAfterMs === undefined
              ? undefined
              : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
          child.once('exit', () => {
            clearTimeout(killer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}
