import { Controller, Get, Global, HttpException, Logger, Module } from '@nestjs/common';
import { NestFastifyApplication, RouteConfig } from '@nestjs/platform-fastify';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFastifyApp } from '../http/create-fastify-app';
import { hotRoute } from '../http/hot-routes';
import { requestContextHolds } from '../http/request-context';
import { storage as requestLoggers } from 'nestjs-pino/storage';
import { LoggingModule } from './logging.module';
import { loggablePath } from './request-log';

const SETTINGS = Symbol('log settings');
const folder = mkdtempSync(join(tmpdir(), 'request-log-'));
const logFile = join(folder, 'app.log');

@Controller()
class RoutesController {
  private readonly logger = new Logger('probe');

  @Get('plain')
  plain(): { ok: true } {
    this.logger.log('inside plain');
    return { ok: true };
  }

  @Get('hot-logged')
  @RouteConfig(hotRoute({ requestLog: true }))
  hotLogged(): { ok: true } {
    this.logger.log('inside hot-logged');
    return { ok: true };
  }

  @Get('hot-quiet')
  @RouteConfig(hotRoute())
  hotQuiet(): { ok: true } {
    return { ok: true };
  }

  /** What the request context looks like from inside a route. */
  @Get('context')
  context(): { holds: number; logger: boolean } {
    return { holds: requestContextHolds(), logger: requestLoggers.getStore() !== undefined };
  }

  @Get('hot-context')
  @RouteConfig(hotRoute())
  hotContext(): { holds: number; logger: boolean } {
    return { holds: requestContextHolds(), logger: requestLoggers.getStore() !== undefined };
  }

  @Get('failing')
  failing(): never {
    throw new HttpException('down', 503);
  }

  @Get('health/live')
  live(): { ok: true } {
    return { ok: true };
  }
}

@Global()
@Module({
  providers: [{ provide: SETTINGS, useValue: { logLevel: 'info', logFile } }],
  exports: [SETTINGS],
})
class SettingsModule {}

@Module({
  imports: [SettingsModule, LoggingModule.forRoot('request-log-test', SETTINGS)],
  controllers: [RoutesController],
})
class RoutesModule {}

type Line = Record<string, unknown> & {
  msg?: string;
  req?: Record<string, unknown>;
  res?: Record<string, unknown>;
};

const lines = (): Line[] =>
  (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Line);

describe('logRequests: the request log line', () => {
  let app: NestFastifyApplication;
  let before = 0;

  beforeAll(async () => {
    app = await createFastifyApp(RoutesModule, { bufferLogs: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app.close();
    rmSync(folder, { recursive: true, force: true });
  });

  beforeEach(() => {
    before = lines().length;
  });

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * The lines written since the test began, once the answer's line (if any) is out. The file is
   * written asynchronously: a line that must come (`awaited`) is waited for, up to 5 s, since on a
   * busy machine it can take far longer than the 50 ms that are enough to see that none comes.
   */
  const linesOf = async (
    path: string,
    headers: Record<string, string> = {},
    awaited?: (line: Line) => boolean,
  ) => {
    const answer = await app.inject({ method: 'GET', url: path, headers });
    for (let waited = 0; awaited && waited < 5000; waited += 50) {
      if (lines().slice(before).some(awaited)) break;
      await pause(50);
    }
    await pause(50);
    return { status: answer.statusCode, written: lines().slice(before) };
  };

  /** The request log line of the request named `id`. */
  const completedLine = (id: string) => (line: Line) =>
    line.msg === 'request completed' && line.req?.id === id;

  it('names the request, its status and time, and a line inside names the request too', async () => {
    const { status, written } = await linesOf(
      '/plain?x=1',
      { 'x-request-id': 'plain-1' },
      completedLine('plain-1'),
    );
    expect(status).toBe(200);
    const completed = written.filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({
      req: { id: 'plain-1', method: 'GET', url: '/plain' },
      res: { statusCode: 200 },
      name: 'request-log-test',
    });
    expect(typeof completed[0].responseTime).toBe('number');
    const inside = written.find((line) => line.msg === 'inside plain');
    expect(inside?.req).toMatchObject({ id: 'plain-1' });
  });

  it('writes one line for a hot route that needs it, without a request-bound logger', async () => {
    const { written } = await linesOf(
      '/hot-logged',
      { 'x-request-id': 'hot-1' },
      completedLine('hot-1'),
    );
    expect(written.filter((line) => line.msg === 'request completed')).toEqual([
      expect.objectContaining({ req: { id: 'hot-1', method: 'GET', url: '/hot-logged' } }),
    ]);
    // Nest middleware (pino-http) does not run on a hot route.
    expect(written.find((line) => line.msg === 'inside hot-logged')?.req).toBeUndefined();
  });

  it('writes none for a hot route that does not need it, nor for a health check', async () => {
    expect((await linesOf('/hot-quiet')).written).toEqual([]);
    expect((await linesOf('/health/live')).written).toEqual([]);
  });

  it('has the request-bound logger switched on only while a route that is not hot is served', async () => {
    const enabled = () => (requestLoggers as unknown as { enabled: boolean }).enabled;
    const plain = await app.inject({ method: 'GET', url: '/context' });
    expect(plain.json()).toEqual({ holds: 1, logger: true });
    await new Promise((resolve) => setImmediate(resolve));
    // Answered: nothing holds it, so no promise of the process pays for it any more.
    expect(requestContextHolds()).toBe(0);
    expect(enabled()).toBe(false);
    const hot = await app.inject({ method: 'GET', url: '/hot-context' });
    expect(hot.json()).toEqual({ holds: 0, logger: false });
    expect(enabled()).toBe(false);
  });

  it('says "request errored" for a 5xx answer', async () => {
    const answer = await app.inject({ method: 'GET', url: '/failing' });
    expect(answer.statusCode).toBe(503);
    // This request's lines only, once its line is in the file: on a busy machine the file may
    // still be receiving lines from before the test.
    const mine = () => lines().filter((line) => line.req?.url === '/failing');
    for (let waited = 0; mine().length === 0 && waited < 5000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(mine()).toEqual([
      expect.objectContaining({ msg: 'request errored', res: { statusCode: 503 } }),
    ]);
  });
});

describe('loggablePath', () => {
  it('drops the query string', () => {
    expect(loggablePath('/v1/orders/ORDER-1?x=1')).toBe('/v1/orders/ORDER-1');
  });

  it('hides the secret segment of the IPN URL', () => {
    expect(loggablePath('/v1/ipn/s3cret-path-value?OrderTrackingId=1')).toBe('/v1/ipn/[redacted]');
  });
});
