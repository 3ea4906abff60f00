import { pino } from 'pino';
import { logDestination } from '../../../libs/common/src/logging/log-lines';
import { createExampleShop } from './example-shop';

/**
 * The example shop, as `npm start` runs it beside the payment service: EXAMPLE_SHOP_PORT (3003),
 * PAYMENTS_API_URL (the api, http://127.0.0.1:3000), SHOP_API_KEY (the development shop key),
 * EXAMPLE_SHOP_WEBHOOK_SECRET (the secret of the endpoint the service posts to); its lines as
 * LOG_LEVEL, LOG_FORMAT and LOG_FILE say, like the service's.
 */
const log = pino(
  { name: 'shop', level: process.env.LOG_LEVEL || 'info' },
  logDestination({
    logFile: process.env.LOG_FILE,
    logFormat: process.env.LOG_FORMAT === 'pretty' ? 'pretty' : 'json',
  }),
);

async function main(): Promise<void> {
  const port = Number(process.env.EXAMPLE_SHOP_PORT || 3003);
  const host = process.env.EXAMPLE_SHOP_HOST || '127.0.0.1';
  const shop = await createExampleShop({
    apiUrl: process.env.PAYMENTS_API_URL || 'http://127.0.0.1:3000',
    shopApiKey: process.env.SHOP_API_KEY || 'shop_dev_key',
    publicUrl: process.env.EXAMPLE_SHOP_URL || `http://127.0.0.1:${port}`,
    webhookSecret: process.env.EXAMPLE_SHOP_WEBHOOK_SECRET || null,
    waitMs: Number(process.env.EXAMPLE_SHOP_WAIT_MS || 180_000),
    log,
  });
  await shop.listen({ port, host });
  log.info(`example shop listening on http://127.0.0.1:${port}`);
  const stop = () => void shop.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  log.fatal(`example shop: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
