import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { waitFor } from './service';
import { currentTestRun } from './test-servers';

const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';
/** Redis Cluster nodes talk to each other on their port + 10000. */
const BUS_OFFSET = 10_000;

export interface LocalRedisCluster {
  /** The masters' addresses, `127.0.0.1:port`, as REDIS_CLUSTER_NODES takes them. */
  nodes: string[];
  /** A plain client per master (to look at the keys each holds). */
  masters(): Promise<Redis[]>;
  stop(): Promise<void>;
}

export const redisServerInstalled = (): boolean =>
  existsSync(REDIS_SERVER) && existsSync(REDIS_CLI);

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port whose cluster-bus port (+10000) is free too. */
async function clusterPort(taken: number[]): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if (taken.includes(port) || taken.includes(port + BUS_OFFSET)) continue;
    if ((await portIsFree(port)) && (await portIsFree(port + BUS_OFFSET))) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

/** A client of the redis-server on this port, once it answers. */
async function clientWhenUp(port: number): Promise<Redis> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  try {
    await waitFor(
      `redis-server on ${port}`,
      async () => {
        try {
          if (client.status !== 'ready') await client.connect();
          return (await client.ping()) === 'PONG' || null;
        } catch {
          return null;
        }
      },
      10_000,
      100,
    );
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}

export interface LocalRedisServer {
  url: string;
  stop(): Promise<void>;
}

const killed = (server: ChildProcess): Promise<void> =>
  new Promise<void>((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) return resolve();
    server.once('exit', () => resolve());
    server.kill('SIGKILL');
  });

/**
 * One redis-server of this suite's own, on a free port (or the one given: a restart), nothing kept
 * on disk: a Redis for a test about Redis when the run has none (the suite's pass without
 * servers), or one a test may flush or restart empty without touching the run's.
 */
export async function startRedisServer(port?: number): Promise<LocalRedisServer> {
  port ??= await clusterPort([]);
  const server = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  try {
    (await clientWhenUp(port)).disconnect();
  } catch (error) {
    await killed(server);
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => killed(server) };
}

/**
 * A Redis for a test about Redis itself (its outage, its shared keys): the run's own when it has
 * one, else (the pass without servers) a redis-server of the test's own, so that no test skips.
 */
export async function redisForTest(): Promise<LocalRedisServer> {
  const run = currentTestRun();
  if (run.queueBackend === 'redis') return { url: run.redisUrl, stop: async () => undefined };
  if (!redisServerInstalled()) {
    throw new Error(
      'no Redis in this run and no redis-server to start: apt-get install redis-server',
    );
  }
  return startRedisServer();
}

/**
 * A real Redis Cluster of three masters from the machine's redis-server, in cluster mode on ports
 * of its own, with nothing on disk outside its temporary folder (removed by stop()).
 */
export async function startRedisCluster(masters = 3): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pesapal-redis-cluster-'));
  const ports: number[] = [];
  const servers: ChildProcess[] = [];
  const clients: Redis[] = [];
  const stop = async (): Promise<void> => {
    clients.forEach((client) => client.disconnect());
    await Promise.all(servers.map(killed));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < masters; index += 1) {
      const port = await clusterPort(ports);
      ports.push(port);
      const nodeDir = join(dir, String(port));
      mkdirSync(nodeDir);
      servers.push(
        spawn(
          REDIS_SERVER,
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(nodeDir, 'nodes.conf'),
            '--cluster-node-timeout',
            '5000',
            '--dir',
            nodeDir,
            '--save',
            '',
            '--appendonly',
            'no',
            '--logfile',
            join(nodeDir, 'redis.log'),
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    for (const port of ports) clients.push(await clientWhenUp(port));
    await promisify(execFile)(REDIS_CLI, ['--cluster', 'create', ...nodes, '--cluster-yes'], {
      timeout: 30_000,
    });
    for (const client of clients) {
      await waitFor(
        'the cluster to agree its slots',
        async () => /cluster_state:ok/.test(String(await client.cluster('INFO'))) || null,
        20_000,
        100,
      );
    }
    return { nodes, masters: async () => clients, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
