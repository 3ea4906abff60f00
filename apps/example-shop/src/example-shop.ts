import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import Fastify, { FastifyInstance, FastifyReply } from 'fastify';
import {
  ShopApiError,
  ShopApiUnreachable,
  ShopClient,
  WebhookRefused,
  WebhookVerifier,
} from '../../../libs/shop-client/src';
import {
  PRODUCT,
  productPage,
  ReceivedWebhookRow,
  receiptPage,
  Refusal,
  styleSheet,
  waitingPage,
  webhooksPage,
} from './shop-pages';

export interface ExampleShopConfig {
  /** The payment service's api, as the shop's server and the customer's browser reach it. */
  apiUrl: string;
  shopApiKey: string;
  /** The shop's own address (for return_url). */
  publicUrl: string;
  /** The secret of the webhook endpoint the payment service posts to (/webhooks/payments). */
  webhookSecret: string | null;
  /** How long the waiting page follows the order before saying it is still pending. */
  waitMs: number;
  /** Where the shop says what happens: an order started, a webhook received (default: nowhere). */
  log?: ShopLog;
}

/** A line of the shop's own: what a shop's server would write to its log. */
export interface ShopLog {
  info(message: string): void;
  warn(message: string): void;
}

const SILENT: ShopLog = { info: () => undefined, warn: () => undefined };

const NOT_OURS: Refusal = { code: 'not_found', message: 'no such order in this shop' };

/** What the shop remembers of each order (in memory: it is an example). */
interface ShopOrder {
  kind: 'hosted' | 'mobile_money';
  statusToken: string;
}

/**
 * Scripts and styles from the shop only; the browser talks to the shop and the api's live
 * status. Forms go to the shop, which redirects to the gateway's page (form-action also governs
 * that redirect, and the gateway's address is only known from each checkout's answer).
 */
const securityHeaders = (apiUrl: string) => ({
  'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' ${new URL(apiUrl).origin}; form-action 'self' https: http:; img-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
});

/** A refusal as the shop shows it: the api's code and message, and the shop's own status. */
function refusalOf(error: unknown): { status: number; refusal: Refusal } {
  if (error instanceof ShopApiError) {
    const status = error.status >= 500 ? 502 : error.status === 404 ? 404 : 400;
    return { status, refusal: { code: error.code, message: error.message } };
  }
  if (error instanceof ShopApiUnreachable) {
    return { status: 502, refusal: { code: 'unreachable', message: error.message } };
  }
  throw error;
}

/** A new order's reference, made when the product page is shown (a double submit reuses it). */
const newReference = () => `SHOP-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
const REFERENCE = /^SHOP-[a-z0-9]+-[a-f0-9]{6}$/;

/**
 * The waiting page's source: beside this file when run from source, else found from the built
 * file's folder upwards (the build keeps the repository's layout under dist/).
 */
function waitingPageSource(): string {
  const relative = join('apps', 'example-shop', 'src', 'browser', 'waiting-page.ts');
  const beside = join(__dirname, 'browser', 'waiting-page.ts');
  if (existsSync(beside)) return beside;
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return join(dir, relative);
  }
  throw new Error(`cannot find ${relative} above ${__dirname}`);
}

/**
 * The waiting page's script with the shop client, bundled for the browser (esbuild). The shop uses
 * nothing of the service's own libraries (a shop developer copies it as it is), hence its own call.
 */
async function browserScript(): Promise<string> {
  const result = await build({
    entryPoints: [waitingPageSource()],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/**
 * A small shop that takes payments through the payment service with the shop client: a product,
 * a hosted or M-Pesa checkout, a waiting page that follows the order live, a receipt, "try again"
 * after a declined or expired payment, and the merchant webhooks it receives, verified.
 */
export async function createExampleShop(config: ExampleShopConfig): Promise<FastifyInstance> {
  const client = new ShopClient({ baseUrl: config.apiUrl, apiKey: config.shopApiKey });
  const verifier = config.webhookSecret
    ? new WebhookVerifier({ secrets: config.webhookSecret.split(',') })
    : null;
  const orders = new Map<string, ShopOrder>();
  const webhooks: ReceivedWebhookRow[] = [];
  const script = await browserScript();
  const headers = securityHeaders(config.apiUrl);
  const log = config.log ?? SILENT;

  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  // Webhooks are verified on their exact bytes: kept as text, parsed only once verified.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.headers(headers);
    return payload;
  });

  const html = (reply: FastifyReply, status: number, page: string) =>
    reply.code(status).type('text/html; charset=utf-8').send(page);
  const refused = (reply: FastifyReply, error: unknown, phone?: string) => {
    const { status, refusal } = refusalOf(error);
    return html(reply, status, productPage(newReference(), refusal, phone));
  };

  app.get('/', async (_request, reply) => html(reply, 200, productPage(newReference())));
  app.get('/static/shop.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').send(styleSheet()),
  );
  app.get('/static/waiting-page.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(script),
  );

  app.post('/checkout', async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, string>;
    const reference = REFERENCE.test(form.reference ?? '') ? form.reference : newReference();
    // One key per order and what was asked: a double submit, or a retry after a timeout, is the
    // same request and starts one payment; a corrected phone number is a new request.
    const idempotencyKey = createHash('sha256')
      .update(`${reference}\n${form.method}\n${form.phone ?? ''}`)
      .digest('hex');
    const common = {
      amount: PRODUCT.amount,
      currency: PRODUCT.currency,
      description: PRODUCT.name,
      reference,
      customer: { email: form.email || 'customer@example.com' },
      return_url: `${config.publicUrl}/orders/${reference}`,
    };
    try {
      if (form.method === 'mobile_money') {
        // The phone goes as the customer typed it: the service reads it for the country.
        const push = await client.createMobileMoneyCheckout(
          { ...common, phone: form.phone ?? '', network: 'MPESA' },
          { idempotencyKey },
        );
        orders.set(reference, { kind: 'mobile_money', statusToken: push.status_token });
        log.info(`order ${reference}: M-Pesa prompt sent`);
        return reply.redirect(`/orders/${encodeURIComponent(reference)}`, 303);
      }
      const hosted = await client.createCheckout(common, { idempotencyKey });
      orders.set(reference, { kind: 'hosted', statusToken: hosted.status_token });
      log.info(`order ${reference}: customer sent to the payment page`);
      return reply.redirect(hosted.redirect_url ?? `/orders/${reference}`, 303);
    } catch (error) {
      // The same reference again, so that a corrected form still makes one order.
      const { status, refusal } = refusalOf(error);
      return html(reply, status, productPage(reference, refusal, form.phone));
    }
  });

  app.get<{ Params: { reference: string } }>('/orders/:reference', async (request, reply) => {
    const order = orders.get(request.params.reference);
    if (!order) return html(reply, 404, productPage(newReference(), NOT_OURS));
    return html(
      reply,
      200,
      waitingPage({
        reference: request.params.reference,
        statusToken: order.statusToken,
        apiUrl: config.apiUrl,
        waitMs: config.waitMs,
        kind: order.kind,
      }),
    );
  });

  app.post<{ Params: { reference: string } }>(
    '/orders/:reference/attempts',
    async (request, reply) => {
      const { reference } = request.params;
      if (!orders.has(reference)) return html(reply, 404, productPage(newReference(), NOT_OURS));
      const form = (request.body ?? {}) as Record<string, string>;
      try {
        const attempt =
          form.method === 'mobile_money'
            ? await client.startAttempt(reference, {
                method: 'mobile_money',
                phone: form.phone ?? '',
                network: 'MPESA',
              })
            : await client.startAttempt(reference, { method: 'hosted' });
        orders.set(reference, {
          kind: form.method === 'mobile_money' ? 'mobile_money' : 'hosted',
          statusToken: attempt.status_token,
        });
        const next = 'redirect_url' in attempt ? attempt.redirect_url : null;
        return reply.redirect(next ?? `/orders/${encodeURIComponent(reference)}`, 303);
      } catch (error) {
        return refused(reply, error, form.phone);
      }
    },
  );

  app.get<{ Params: { reference: string } }>(
    '/orders/:reference/receipt',
    async (request, reply) => {
      // Only this shop's orders: the api would answer for any order the shop key can see.
      if (!orders.has(request.params.reference)) {
        return html(reply, 404, productPage(newReference(), NOT_OURS));
      }
      try {
        return html(reply, 200, receiptPage(await client.getOrder(request.params.reference)));
      } catch (error) {
        return refused(reply, error);
      }
    },
  );

  app.post('/webhooks/payments', async (request, reply) => {
    const body = typeof request.body === 'string' ? request.body : '';
    const received = request.headers as Record<string, string | string[] | undefined>;
    const row: ReceivedWebhookRow = {
      at: new Date().toISOString(),
      id: String(received['webhook-id'] ?? ''),
      verdict: 'accepted',
      type: '',
      reference: '',
    };
    try {
      if (!verifier) {
        log.warn('webhook refused: no webhook secret configured');
        webhooks.unshift({ ...row, verdict: 'refused: no webhook secret configured' });
        return reply.code(503).send({ error: 'no webhook secret configured' });
      }
      const { payload } = verifier.verify<{
        type?: string;
        data?: { order?: { reference?: string } };
      }>({ body, headers: received });
      webhooks.unshift({
        ...row,
        type: payload.type ?? '',
        reference: payload.data?.order?.reference ?? '',
      });
      log.info(`webhook ${payload.type ?? ''} for order ${payload.data?.order?.reference ?? ''}`);
      return reply.code(204).send();
    } catch (error) {
      if (!(error instanceof WebhookRefused)) throw error;
      // A redelivery of one already handled (the service resends after a lost answer): 2xx, or
      // it would retry it and hold the order's later events behind it.
      if (error.reason === 'replayed') {
        log.info(`webhook ${row.id}: a redelivery, already handled`);
        webhooks.unshift({ ...row, verdict: 'duplicate: already handled' });
        return reply.code(200).send({ duplicate: true });
      }
      log.warn(`webhook ${row.id} refused: ${error.reason}`);
      webhooks.unshift({ ...row, verdict: `refused: ${error.reason}` });
      return reply.code(400).send({ error: error.reason });
    } finally {
      webhooks.splice(200);
    }
  });

  app.get('/webhooks', async (_request, reply) => html(reply, 200, webhooksPage(webhooks)));
  return app;
}
