import { randomBytes } from 'node:crypto';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { ServiceConfigModule } from '@app/config';
import { MerchantEventType } from '@app/domain';
import { OrderJournal } from '@app/checkout/orders/order-journal';
import { MerchantEventsWorkerModule } from '@app/checkout/merchant-events/worker/merchant-events-worker.module';
import { OrderEntity, OutboxEventEntity, PersistenceModule } from '@app/persistence';
import { givenOrder } from '../support/builders';
import { ownTestDatabase } from '../support/database';
import { currentTestRun } from '../support/test-servers';
import { createApiUnderContract } from '../support/api-contract';

export const ADMIN_KEY = 'admin_key_webhook_endpoints';
export const SHOP_KEY = 'shop_key_webhook_endpoints';

export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

@Module({
  imports: [ServiceConfigModule, PersistenceModule.forApp('worker'), MerchantEventsWorkerModule],
})
class WebhookWorkerUnderTest {}

/** A worker that runs only the webhook dispatcher, on DATABASE_URL (TEST_WORKER_LOGS=1: its logs). */
export async function startWebhookDispatcher(): Promise<INestApplicationContext> {
  const worker = await NestFactory.createApplicationContext(WebhookWorkerUnderTest, {
    logger: process.env.TEST_WORKER_LOGS ? ['log', 'warn', 'error'] : false,
  });
  await worker.init();
  return worker;
}

export { waitFor } from '../support/service';

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface EndpointAnswer {
  id: string;
  url: string;
  secret: string;
  state: string;
  event_types: string[] | null;
  disabled_reason: string | null;
  source: string;
}

/**
 * A database of the suite's own (so no other suite's events reach its endpoints), the api app,
 * and workers that run only the merchant-events worker module (the dispatcher), restartable
 * with another environment.
 */
export class WebhookHarness {
  dataSource!: DataSource;
  api!: NestFastifyApplication;
  apiUrl = '';
  readonly workers: INestApplicationContext[] = [];
  private readonly savedEnv = { ...process.env };
  private dropDatabase: (() => Promise<void>) | undefined;
  private readonly journal = new OrderJournal();

  constructor(
    private readonly suffix: string,
    private readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {
    const run = currentTestRun();
    const own = await ownTestDatabase(this.suffix);
    this.dropDatabase = own.drop;
    this.dataSource = own.dataSource;
    Object.assign(process.env, {
      QUEUE_PREFIX: `${run.queuePrefix}_${this.suffix}`,
      RUN_MIGRATIONS: 'false',
      SWEEP_INTERVAL_MS: '100',
      ADMIN_API_KEYS: `ops:${ADMIN_KEY}`,
      SHOP_API_KEYS: SHOP_KEY,
      ...this.env,
    });
    await this.startWorker();
    this.api = await createApiUnderContract();
    await this.api.listen(0, '127.0.0.1');
    const address = this.api.getHttpServer().address();
    if (!address || typeof address === 'string') throw new Error('api did not bind a TCP port');
    this.apiUrl = `http://127.0.0.1:${address.port}`;
  }

  async startWorker(): Promise<INestApplicationContext> {
    const worker = await startWebhookDispatcher();
    this.workers.push(worker);
    return worker;
  }

  /** Stops every worker and starts one with these variables changed (undefined unsets). */
  async restartWorker(env: Record<string, string | undefined>): Promise<void> {
    await this.stopWorkers();
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await this.startWorker();
  }

  async stopWorkers(): Promise<void> {
    for (const worker of this.workers.splice(0)) await worker.close();
  }

  async stop(): Promise<void> {
    await this.api?.close();
    await this.stopWorkers();
    process.env = { ...this.savedEnv };
    await this.dropDatabase?.();
  }

  admin(path: string, init: { method?: string; body?: unknown; key?: string } = {}) {
    return fetch(`${this.apiUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${init.key ?? ADMIN_KEY}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  }

  async createEndpoint(body: Record<string, unknown>): Promise<EndpointAnswer> {
    const response = await this.admin('/v1/admin/webhook-endpoints', { method: 'POST', body });
    if (response.status !== 201) {
      throw new Error(`endpoint not created: ${response.status} ${await response.text()}`);
    }
    return (await response.json()) as EndpointAnswer;
  }

  async deleteEndpoint(id: string): Promise<void> {
    const response = await this.admin(`/v1/admin/webhook-endpoints/${id}`, { method: 'DELETE' });
    if (response.status !== 204) throw new Error(`endpoint not deleted: ${response.status}`);
  }

  /** A state change as the order services write it: the outbox row in the same transaction. */
  async orderChanged(
    type: MerchantEventType,
    order?: OrderEntity,
  ): Promise<{ order: OrderEntity; eventId: string }> {
    const changed = order ?? (await givenOrder(this.dataSource));
    const rows = await this.dataSource.transaction(async (manager) => {
      await this.journal.announce(manager, changed, type);
      return manager.query(
        `SELECT id FROM outbox_events WHERE order_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
        [changed.id],
      ) as Promise<{ id: string }[]>;
    });
    return { order: changed, eventId: rows[0].id };
  }

  outbox(id: string): Promise<OutboxEventEntity> {
    return this.dataSource.getRepository(OutboxEventEntity).findOneByOrFail({ id });
  }

  async endpointState(id: string): Promise<EndpointAnswer> {
    return (await (await this.admin(`/v1/admin/webhook-endpoints/${id}`)).json()) as EndpointAnswer;
  }
}
