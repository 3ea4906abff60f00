import { ChildProcess, execFileSync, execSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** This working tree: the release under test. */
export const THIS_RELEASE_DIR = join(__dirname, '..', '..');

export interface Release {
  /** The commit, or 'working tree' for this one. */
  commit: string;
  dir: string;
  /** Where its processes write their output (one file per process). */
  logDir: string;
  /** Runs `apps/<app>/src/<entry>.ts` of this release as a child process, from TypeScript. */
  start(app: 'api' | 'worker', env: Record<string, string>, entry?: string): ReleaseProcess;
  /** Applies this release's migrations (its migrate entry point) and resolves when it exits. */
  migrate(env: Record<string, string>): Promise<void>;
  remove(): void;
}

export interface ReleaseProcess {
  name: string;
  child: ChildProcess;
  /**
   * SIGTERM, as Kubernetes stops a pod; resolves with how it ended: its exit code, or the signal
   * (Nest closes the app on SIGTERM, then raises the signal again to end as signalled).
   */
  stop(): Promise<number | string>;
  /** The last lines it printed (for a failure's message). */
  tail(lines?: number): string;
}

let started = 0;

function releaseAt(commit: string, dir: string, logDir: string, cleanup: () => void): Release {
  const start = (
    app: 'api' | 'worker',
    env: Record<string, string>,
    entry = 'main',
  ): ReleaseProcess => {
    started += 1;
    const name = `${app}-${entry}-${started}`;
    const logFile = join(logDir, `${name}.log`);
    const log = createWriteStream(logFile);
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', `apps/${app}/src/${entry}.ts`],
      {
        cwd: dir,
        // Its own tsconfig (paths into its own libs), never the tree that runs the test.
        env: { ...process.env, ...env, SWC_NODE_PROJECT: join(dir, 'tsconfig.json') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    const exited = new Promise<number | string>((resolve) =>
      child.once('exit', (code, signal) => {
        log.end();
        resolve(signal ?? code ?? -1);
      }),
    );
    return {
      name,
      child,
      stop: () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        return exited;
      },
      tail: (lines = 30) => {
        try {
          return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
        } catch {
          return '';
        }
      },
    };
  };
  return {
    commit,
    dir,
    logDir,
    start,
    migrate: async (env) => {
      const migration = start('api', { ...env, LOG_LEVEL: 'warn' }, 'migrate');
      const code = await new Promise<number | null>((resolve) =>
        migration.child.once('exit', (exitCode) => resolve(exitCode)),
      );
      if (code !== 0) {
        throw new Error(`migrations of ${commit} exited ${code}:\n${migration.tail()}`);
      }
    },
    remove: cleanup,
  };
}

/** The working tree as a release (its processes write their logs to a folder of their own). */
export function thisRelease(): Release {
  const logDir = mkdtempSync(join(tmpdir(), 'pesapal-release-logs-'));
  return releaseAt('working tree', THIS_RELEASE_DIR, logDir, () =>
    rmSync(logDir, { recursive: true, force: true }),
  );
}

/**
 * An earlier release built from git: the commit's tree in a folder of its own, with this tree's
 * node_modules when its package-lock.json is the same (else its own `npm ci`), run from TypeScript
 * as this tree's processes are.
 */
export function releaseFromGit(revision: string): Release {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', THIS_RELEASE_DIR, ...args], { encoding: 'utf8' }).trim();
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', '--quiet', `${revision}^{commit}`);
  } catch {
    throw new Error(
      `the previous release ${revision} is not in this clone's history (a shallow clone? fetch it, or set UPGRADE_FROM)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), `pesapal-release-${commit.slice(0, 8)}-`));
  const logDir = join(dir, '.logs');
  try {
    execSync(
      `set -o pipefail; git -C "${THIS_RELEASE_DIR}" archive --format=tar ${commit} | tar -x -C "${dir}"`,
      { shell: '/bin/bash' },
    );
    execSync(`mkdir -p "${logDir}"`);
    const lock = git('show', `${commit}:package-lock.json`);
    const ours = readFileSync(join(THIS_RELEASE_DIR, 'package-lock.json'), 'utf8').trim();
    if (lock === ours) {
      symlinkSync(join(THIS_RELEASE_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
    } else {
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
        cwd: dir,
        stdio: 'ignore',
        timeout: 600_000,
      });
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return releaseAt(commit, dir, logDir, () => rmSync(dir, { recursive: true, force: true }));
}
