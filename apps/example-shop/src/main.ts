import { createExampleShop } from './example-shop';

/**
 * The example shop, as `npm start` runs it beside the payment service: EXAMPLE_SHOP_PORT (3003),
 * PAYMENTS_API_URL (the api, http://127.0.0.1:3000), SHOP_API_KEY (the development shop key),
 * EXAMPLE_SHOP_WEBHOOK_SECRET (the secret of the endpoint the service posts to).
 */
async function main(): Promise<void> {
  const port = Number(process.env.EXAMPLE_SHOP_PORT || 3003);
  const host = process.env.EXAMPLE_SHOP_HOST || '127.0.0.1';
  const shop = await createExampleShop({
    apiUrl: process.env.PAYMENTS_API_URL || 'http://127.0.0.1:3000',
    shopApiKey: process.env.SHOP_API_KEY || 'shop_dev_key',
    publicUrl: process.env.EXAMPLE_SHOP_URL || `http://127.0.0.1:${port}`,
    webhookSecret: process.env.EXAMPLE_SHOP_WEBHOOK_SECRET || null,
    waitMs: Number(process.env.EXAMPLE_SHOP_WAIT_MS || 180_000),
  });
  await shop.listen({ port, host });
  process.stdout.write(`example shop listening on http://127.0.0.1:${port}\n`);
  const stop = () => void shop.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`example shop: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
