import type { LoggerService } from '@nestjs/common';
import { WiringAtDebug } from './wiring-at-debug';

/** Records which method each call reached, with its message and context. */
function recordingLogger(): { logger: LoggerService; calls: string[] } {
  const calls: string[] = [];
  const record =
    (level: string) =>
    (message: unknown, ...rest: unknown[]) =>
      calls.push(`${level} ${String(message)} [${rest.join(',')}]`);
  return {
    calls,
    logger: {
      log: record('info'),
      error: record('error'),
      warn: record('warn'),
      debug: record('debug'),
      verbose: record('verbose'),
    },
  };
}

describe('WiringAtDebug', () => {
  it("moves Nest's route maps and module wiring to debug", () => {
    const { logger, calls } = recordingLogger();
    const quiet = new WiringAtDebug(logger);
    quiet.log('Mapped {/v1/checkouts, POST} route', 'RouterExplorer');
    quiet.log('CheckoutController {/v1/checkouts}:', 'RoutesResolver');
    quiet.log('ApiModule dependencies initialized', 'InstanceLoader');
    quiet.log('Starting Nest application...', 'NestFactory');
    quiet.log('Nest application successfully started', 'NestApplication');
    expect(calls).toEqual([
      'debug Mapped {/v1/checkouts, POST} route [RouterExplorer]',
      'debug CheckoutController {/v1/checkouts}: [RoutesResolver]',
      'debug ApiModule dependencies initialized [InstanceLoader]',
      'debug Starting Nest application... [NestFactory]',
      'debug Nest application successfully started [NestApplication]',
    ]);
  });

  it("keeps the app's own records at their level", () => {
    const { logger, calls } = recordingLogger();
    const quiet = new WiringAtDebug(logger);
    quiet.log('schema is up to date', 'Migrations');
    quiet.log('no context');
    quiet.warn('slow gateway', 'GatewayClient');
    quiet.error('RouterExplorer failed', 'stack', 'RouterExplorer');
    expect(calls).toEqual([
      'info schema is up to date [Migrations]',
      'info no context []',
      'warn slow gateway [GatewayClient]',
      'error RouterExplorer failed [stack,RouterExplorer]',
    ]);
  });
});
