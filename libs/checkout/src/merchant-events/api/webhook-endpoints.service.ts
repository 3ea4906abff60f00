import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { isUuid, webhookSecretFrom } from '@app/domain';
import { WebhookEndpointEntity } from '@app/persistence';
import { endpointEventInsert } from '../../orders/order-journal';
import { CheckoutError } from '../../errors/checkout-error';
import { recordCurrentAct } from '../../operators/audit-trail';
import { EndpointAddressRules, endpointUrlProblem } from '../endpoint-address';
import { WEBHOOK_ENDPOINTS_LIMIT } from '../delivery-limits';
import { disableEndpointStatement, REQUEUE_MESSAGE } from '../endpoint-statements';
import { toEndpointView, WebhookEndpointView } from '../endpoint-view';
import {
  CreateWebhookEndpointBody,
  ReplayBody,
  RotateSecretBody,
  UpdateWebhookEndpointBody,
} from './webhook-endpoints.dto';

const SECRET_BYTES = 32;
const DEFAULT_OVERLAP_SECONDS = 86_400;

export interface EndpointWithSecret extends WebhookEndpointView {
  /** Shown this once: keep it in the shop's configuration. */
  secret: string;
}

/** Admins' management of the shop's webhook endpoints: CRUD, secret rotation, test, replay. */
@Injectable()
export class WebhookEndpointsService {
  private readonly logger = new Logger(WebhookEndpointsService.name);
  private readonly addressRules: EndpointAddressRules;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.addressRules = {
      requireHttps: config.nodeEnv === 'production' && !config.webhookAllowPrivate,
      allowPrivate: config.webhookAllowPrivate,
    };
  }

  private get endpoints() {
    return this.dataSource.getRepository(WebhookEndpointEntity);
  }

  async list(): Promise<{ data: WebhookEndpointView[] }> {
    const rows = await this.endpoints.find({ order: { createdAt: 'ASC', id: 'ASC' } });
    return { data: rows.map((row) => toEndpointView(row)) };
  }

  async get(id: string): Promise<WebhookEndpointView> {
    return toEndpointView(await this.find(id));
  }

  async create(body: CreateWebhookEndpointBody, actor: string): Promise<EndpointWithSecret> {
    await this.checkUrl(body.url);
    const secret = newSecret();
    const saved = await this.dataSource.transaction(async (manager) => {
      // Counted and added under one lock: two admins adding at once cannot pass the limit.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints.create'))`);
      const [{ added }] = (await manager.query(
        `SELECT count(*)::int AS added FROM webhook_endpoints WHERE source = 'admin'`,
      )) as { added: number }[];
      if (added >= WEBHOOK_ENDPOINTS_LIMIT) {
        throw new CheckoutError(
          'webhook_endpoints_limit_reached',
          `there are ${added} webhook endpoints, the most there may be (${WEBHOOK_ENDPOINTS_LIMIT}); delete one first`,
        );
      }
      const endpoints = manager.getRepository(WebhookEndpointEntity);
      const created = await endpoints.save(
        endpoints.create({
          url: body.url,
          description: body.description ?? '',
          eventTypes: body.event_types ?? null,
          secret,
          source: 'admin',
        }),
      );
      await recordCurrentAct(manager, {
        action: 'webhook_endpoint.created',
        target: `webhook_endpoint:${created.id}`,
        after: definitionOf(created),
      });
      return created;
    });
    this.logger.log(`webhook endpoint ${saved.id} created by ${actor}`);
    return { ...toEndpointView(saved), secret };
  }

  async update(
    id: string,
    body: UpdateWebhookEndpointBody,
    actor: string,
  ): Promise<WebhookEndpointView> {
    const endpoint = await this.find(id);
    const changesDefinition =
      body.url !== undefined || body.description !== undefined || 'event_types' in body;
    if (changesDefinition && endpoint.source === 'environment') {
      throw environmentOwned(endpoint, 'its URL and filter come from ORDER_WEBHOOK_URL');
    }
    const before = definitionOf(endpoint);
    if (body.url !== undefined) {
      await this.checkUrl(body.url);
      endpoint.url = body.url;
    }
    if (body.description !== undefined) endpoint.description = body.description;
    if ('event_types' in body) endpoint.eventTypes = body.event_types ?? null;
    if (body.enabled === true) {
      endpoint.disabledAt = null;
      endpoint.disabledReason = null;
      endpoint.failingSince = null;
    }
    await this.dataSource.transaction(async (manager) => {
      await manager.getRepository(WebhookEndpointEntity).save(endpoint);
      if (body.enabled === false) {
        const [sql, params] = disableEndpointStatement(id, `disabled by ${actor}`, '', false);
        await manager.query(sql, params);
      }
      await recordCurrentAct(manager, {
        action: 'webhook_endpoint.updated',
        target: `webhook_endpoint:${id}`,
        before,
        after: { ...definitionOf(endpoint), ...(body.enabled === false ? { enabled: false } : {}) },
      });
    });
    this.logger.log(`webhook endpoint ${id} updated by ${actor}`);
    return this.get(id);
  }

  async remove(id: string, actor: string): Promise<void> {
    const endpoint = await this.find(id);
    if (endpoint.source === 'environment') {
      throw environmentOwned(endpoint, 'unset ORDER_WEBHOOK_URL to remove it');
    }
    // Its messages go with it; the attempts stay in the events' history, without the endpoint.
    await this.dataSource.transaction(async (manager) => {
      await manager.getRepository(WebhookEndpointEntity).delete({ id });
      await recordCurrentAct(manager, {
        action: 'webhook_endpoint.deleted',
        target: `webhook_endpoint:${id}`,
        before: definitionOf(endpoint),
      });
    });
    this.logger.log(`webhook endpoint ${id} deleted by ${actor}`);
  }

  /**
   * A new secret signs from now on; the old one keeps signing beside it for the overlap, so the
   * shop can switch its receivers over without refusing a single delivery.
   */
  async rotateSecret(
    id: string,
    body: RotateSecretBody,
    actor: string,
  ): Promise<EndpointWithSecret> {
    const endpoint = await this.find(id);
    if (endpoint.source === 'environment') {
      throw environmentOwned(endpoint, 'rotate it by listing ORDER_WEBHOOK_SECRET=new,old');
    }
    const overlapSeconds = body.overlap_seconds ?? DEFAULT_OVERLAP_SECONDS;
    const secret = newSecret();
    endpoint.previousSecret = overlapSeconds > 0 ? endpoint.secret : null;
    endpoint.previousSecretExpiresAt =
      overlapSeconds > 0 ? new Date(Date.now() + overlapSeconds * 1000) : null;
    endpoint.secret = secret;
    const saved = await this.dataSource.transaction(async (manager) => {
      const rotated = await manager.getRepository(WebhookEndpointEntity).save(endpoint);
      // Never a secret: when the old one stops signing.
      await recordCurrentAct(manager, {
        action: 'webhook_endpoint.secret_rotated',
        target: `webhook_endpoint:${id}`,
        after: {
          previous_secret_expires_at: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
        },
      });
      return rotated;
    });
    this.logger.log(
      `webhook endpoint ${id}: secret rotated by ${actor} (overlap ${overlapSeconds} s)`,
    );
    return { ...toEndpointView(saved), secret };
  }

  /** A `webhook.test` event for this endpoint alone, delivered like any other. */
  async sendTest(id: string, actor: string): Promise<{ event_id: string }> {
    const endpoint = await this.find(id);
    if (endpoint.disabledAt) {
      throw new CheckoutError(
        'webhook_endpoint_disabled',
        `webhook endpoint ${id} is disabled (${endpoint.disabledReason ?? 'by an admin'}); enable it first`,
      );
    }
    const [row] = await this.dataSource.transaction(async (manager) => {
      const sent = (await manager.query(
        `WITH event AS (${endpointEventInsert({
          type: 'webhook.test',
          payload: '$2::jsonb',
          relayed: true,
          returning: 'id, created_at',
        })})
       INSERT INTO webhook_messages (event_id, endpoint_id, order_id, event_created_at)
       SELECT id, $1, NULL, created_at FROM event
       RETURNING event_id`,
        [id, JSON.stringify({ endpoint: { id }, message: `a test event sent by ${actor}` })],
      )) as { event_id: string }[];
      await recordCurrentAct(manager, {
        action: 'webhook_endpoint.test_sent',
        target: `webhook_endpoint:${id}`,
        after: { event_id: sent[0]?.event_id ?? null },
      });
      return sent;
    });
    this.logger.log(`webhook endpoint ${id}: test event ${row.event_id} queued by ${actor}`);
    return { event_id: row.event_id };
  }

  /** Every event since a time that this endpoint subscribes to, handed to it again. */
  async replay(id: string, body: ReplayBody, actor: string): Promise<{ queued: number }> {
    const endpoint = await this.find(id);
    const rows = await this.dataSource.transaction(async (manager) => {
      const replayed = (await manager.query(
        `WITH replayed AS (
         INSERT INTO webhook_messages (event_id, endpoint_id, order_id, event_created_at)
         SELECT e.id, ep.id, e.order_id, e.created_at
           FROM outbox_events e JOIN webhook_endpoints ep ON ep.id = $1
          WHERE e.created_at >= $2 AND e.type <> 'webhook.test'
            AND (ep.event_types IS NULL OR e.type = ANY (ep.event_types))
            AND ($3 OR NOT EXISTS (
                  SELECT 1 FROM webhook_messages d
                   WHERE d.event_id = e.id AND d.endpoint_id = ep.id AND d.state = 'delivered'))
         ${REQUEUE_MESSAGE}
         RETURNING event_id),
       reopened AS (
         UPDATE outbox_events e SET delivered_at = NULL, relayed_at = coalesce(e.relayed_at, now())
           FROM replayed r WHERE e.id = r.event_id)
       SELECT count(*)::int AS queued FROM replayed`,
        [endpoint.id, body.since, body.include_delivered ?? false],
      )) as { queued: number }[];
      await recordCurrentAct(manager, {
        action: 'webhook_endpoint.replayed',
        target: `webhook_endpoint:${id}`,
        after: {
          since: body.since.toISOString(),
          include_delivered: body.include_delivered ?? false,
          queued: replayed[0]?.queued ?? 0,
        },
      });
      return replayed;
    });
    const queued = rows[0]?.queued ?? 0;
    this.logger.log(
      `webhook endpoint ${id}: ${queued} event(s) since ${body.since.toISOString()} replayed by ${actor}`,
    );
    return { queued };
  }

  private async find(id: string): Promise<WebhookEndpointEntity> {
    const endpoint = isUuid(id) ? await this.endpoints.findOneBy({ id }) : null;
    if (!endpoint) throw CheckoutError.notFound('webhook_endpoint', id);
    return endpoint;
  }

  private async checkUrl(url: string): Promise<void> {
    const problem = await endpointUrlProblem(url, this.addressRules);
    if (problem) throw CheckoutError.invalid([{ field: 'url', reason: problem }]);
  }
}

function newSecret(): string {
  return webhookSecretFrom(randomBytes(SECRET_BYTES));
}

function environmentOwned(endpoint: WebhookEndpointEntity, hint: string): CheckoutError {
  return new CheckoutError(
    'webhook_endpoint_managed_by_environment',
    `webhook endpoint ${endpoint.id} is ORDER_WEBHOOK_URL: ${hint}`,
  );
}

/** What the trail keeps of an endpoint: its definition, never its secret. */
function definitionOf(endpoint: WebhookEndpointEntity): Record<string, unknown> {
  return {
    // A URL may carry a token in its user part or query: the trail keeps where it points.
    url: urlWithoutCredentials(endpoint.url),
    description: endpoint.description,
    event_types: endpoint.eventTypes,
    enabled: !endpoint.disabledAt,
  };
}

function urlWithoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
