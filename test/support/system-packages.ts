import { spawnSync, SpawnSyncOptions } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { executable, findChromium } from './browser';

/**
 * What some suites need beyond npm: Chromium (the browser suites), Debian's PgBouncer and a
 * PgBouncer with max_prepared_statements (the pooler suite). The test setup installs what is
 * missing when it can (as root, with Debian's packages, as on the machines this project runs
 * on); otherwise it prints one line per package saying how to install it, and the suites that
 * need it fail with that line. TEST_INSTALL_PACKAGES=0 never installs.
 */
interface SystemPackage {
  name: string;
  present(): boolean;
  /** The command that installs it, as shown to a person. */
  install: string;
  run(): boolean;
}

const ROOT = join(__dirname, '..', '..');
const INSTALL_TIMEOUT_MS = 10 * 60_000;

function onPath(name: string): boolean {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir && executable(join(dir, name)));
}

let aptUpdated = false;

function apt(packages: string[]): boolean {
  const options: SpawnSyncOptions = {
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: INSTALL_TIMEOUT_MS,
  };
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    aptUpdated = spawnSync('apt-get', ['update'], { ...options, env }).status === 0;
    if (!aptUpdated) return false;
  }
  return spawnSync('apt-get', ['install', '-y', ...packages], { ...options, env }).status === 0;
}

export const SYSTEM_PACKAGES: SystemPackage[] = [
  {
    name: 'Chromium (browser suites)',
    present: () => process.env.SKIP_BROWSER_TESTS === '1' || findChromium() !== null,
    install: 'apt-get install -y chromium',
    run: () => apt(['chromium']),
  },
  {
    name: 'PgBouncer 1.18 (pooler suite)',
    present: () => executable('/usr/sbin/pgbouncer'),
    install: 'apt-get install -y pgbouncer',
    run: () => apt(['pgbouncer']),
  },
  {
    name: 'PgBouncer 1.24 with max_prepared_statements (pooler suite)',
    present: () => executable('/opt/pgbouncer-prepared/bin/pgbouncer'),
    install: 'scripts/install-pgbouncer-prepared.sh (as root)',
    run: () =>
      spawnSync(join(ROOT, 'scripts', 'install-pgbouncer-prepared.sh'), [], {
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: INSTALL_TIMEOUT_MS,
      }).status === 0,
  },
];

/** Installs what is missing where it can; answers one line per package still missing. */
export function provisionSystemPackages(): string[] {
  const missing = SYSTEM_PACKAGES.filter((pkg) => !pkg.present());
  if (missing.length === 0) return [];
  const canInstall =
    process.env.TEST_INSTALL_PACKAGES !== '0' && process.getuid?.() === 0 && onPath('apt-get');
  const lines: string[] = [];
  for (const pkg of missing) {
    if (canInstall) {
      process.stdout.write(`installing ${pkg.name}: ${pkg.install}\n`);
      pkg.run();
    }
    if (!pkg.present()) lines.push(`missing ${pkg.name}: install it with ${pkg.install}`);
  }
  return lines;
}
