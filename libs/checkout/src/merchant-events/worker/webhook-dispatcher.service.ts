import { cutText } from '@app/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BackgroundLoop, RelayLoop } from '@app/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { PreparedStatement, runPrepared } from '@app/persistence';
import { AttemptVerdict, judgeAttempt } from '../delivery-policy';
import { WEBHOOK_ERROR_MAX_LENGTH } from '../delivery-limits';
import { endpointTakes, SKIPPED_PREFIX } from '../../orders/outbox-handover';
import { GAVE_UP_PREFIX } from '../delivery-state';
import { disableEndpointStatement } from '../endpoint-statements';
import { displayUrlOf } from '../endpoint-view';
import { webhookBody } from '../webhook-signature';
import { EnvironmentEndpoint } from './environment-endpoint';
import { postWebhook, WebhookAttempt } from './webhook-sender';

/** Events handed to endpoints per statement. */
const FAN_OUT_BATCH = 200;
/** Messages sent at once by this process, and to any one endpoint across all processes. */
const CONCURRENCY = 32;
const PER_ENDPOINT = 8;
/** The dispatcher looks at least this often, even when the general sweep interval is longer. */
const MAX_INTERVAL_MS = 250;

/**
 * Hands each new outbox event to every enabled endpoint that subscribes to its type, as one
 * webhook_messages row per endpoint, and marks it relayed, in one statement: an event is handed
 * over exactly once, or not yet.
 */
const FAN_OUT: PreparedStatement = {
  name: 'webhook-fan-out',
  text: `WITH batch AS (
           SELECT id, order_id, type, created_at FROM outbox_events
            WHERE relayed_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED),
         handed AS (
           INSERT INTO webhook_messages (event_id, endpoint_id, order_id, event_created_at)
           SELECT b.id, ep.id, b.order_id, b.created_at
             FROM batch b JOIN webhook_endpoints ep ON ${endpointTakes('ep', 'b.type')}
           ON CONFLICT DO NOTHING
           RETURNING event_id)
         UPDATE outbox_events e
            SET relayed_at = now(),
                last_error = CASE WHEN EXISTS (SELECT 1 FROM handed h WHERE h.event_id = e.id)
                                  THEN NULL ELSE $2 || e.type END
           FROM batch b WHERE e.id = b.id
         RETURNING e.id`,
};

/**
 * Claims due messages for this process until the lease ends: earliest due first, at most
 * PER_ENDPOINT of one endpoint's due messages in flight anywhere (a slow endpoint holds only its
 * own), and never a message while an earlier event of the same order still waits for the same
 * endpoint (so the shop receives an order's events in the order they happened).
 */
const CLAIM: PreparedStatement = {
  name: 'webhook-claim',
  text: `WITH ranked AS (
           SELECT m.event_id, m.endpoint_id, m.next_attempt_at,
                  row_number() OVER (PARTITION BY m.endpoint_id
                                     ORDER BY m.next_attempt_at, m.event_created_at, m.event_id) AS place
             FROM webhook_messages m
             JOIN webhook_endpoints ep ON ep.id = m.endpoint_id AND ep.disabled_at IS NULL
            WHERE m.state = 'pending' AND m.next_attempt_at <= now()
              AND NOT EXISTS (
                SELECT 1 FROM webhook_messages p
                 WHERE p.endpoint_id = m.endpoint_id AND p.order_id = m.order_id
                   AND p.state = 'pending'
                   AND (p.event_created_at, p.event_id) < (m.event_created_at, m.event_id))),
         due AS (
           SELECT m.event_id, m.endpoint_id FROM webhook_messages m
             JOIN ranked r ON r.event_id = m.event_id AND r.endpoint_id = m.endpoint_id
            WHERE r.place <= $2 AND m.state = 'pending'
              AND (m.claimed_until IS NULL OR m.claimed_until < now())
            ORDER BY r.next_attempt_at LIMIT $1
              FOR UPDATE OF m SKIP LOCKED)
         UPDATE webhook_messages m SET claimed_until = now() + make_interval(secs => $3)
           FROM due, outbox_events e, webhook_endpoints ep
          WHERE m.event_id = due.event_id AND m.endpoint_id = due.endpoint_id
            AND e.id = m.event_id AND ep.id = m.endpoint_id
         RETURNING m.event_id, m.endpoint_id, m.attempts, e.type, e.payload, e.created_at,
                   ep.url, ep.source, ep.secret,
                   CASE WHEN ep.previous_secret_expires_at > now() THEN ep.previous_secret END
                     AS previous_secret`,
};

/**
 * Records one attempt: the message's new state, the attempt's row, the endpoint's failing streak
 * (written only when it starts or ends, so deliveries do not contend on the endpoint's row) and
 * the event's summary. Nothing is written if the message is no longer pending (an admin replayed
 * it, or its endpoint was deleted). Answers since when the endpoint has been failing.
 */
const RECORD_ATTEMPT: PreparedStatement = {
  name: 'webhook-record-attempt',
  text: `WITH msg AS (
           UPDATE webhook_messages
              SET attempts = attempts + 1, claimed_until = NULL, state = $3::text,
                  next_attempt_at = now() + make_interval(secs => $4),
                  last_error = $5::text,
                  delivered_at = CASE WHEN $3::text = 'delivered' THEN now() END
            WHERE event_id = $1 AND endpoint_id = $2 AND state = 'pending'
            RETURNING event_id, attempts),
         attempt AS (
           INSERT INTO webhook_deliveries
             (event_id, endpoint_id, attempt, url, response_status, error, response_excerpt, duration_ms)
           SELECT event_id, $2, attempts, $6, $7, $5::text, $8, $9 FROM msg),
         streak AS (
           UPDATE webhook_endpoints
              SET failing_since = CASE WHEN $3::text = 'delivered' THEN NULL ELSE now() END
            WHERE id = $2 AND EXISTS (SELECT 1 FROM msg)
              AND CASE WHEN $3::text = 'delivered' THEN failing_since IS NOT NULL
                       ELSE failing_since IS NULL END
            RETURNING failing_since),
         summary AS (
           UPDATE outbox_events e
              SET attempts = e.attempts + 1,
                  delivered_at = CASE WHEN $3::text = 'delivered' AND NOT EXISTS (
                                   SELECT 1 FROM webhook_messages o
                                    WHERE o.event_id = e.id AND o.endpoint_id <> $2
                                      AND o.state <> 'delivered') THEN now() END,
                  last_error = CASE WHEN $3::text = 'delivered' THEN NULL
                                    WHEN $3::text = 'failed' THEN $10::text || $5::text ELSE $5::text END
             FROM msg WHERE e.id = msg.event_id)
         SELECT CASE WHEN EXISTS (SELECT 1 FROM streak) THEN (SELECT failing_since FROM streak)
                     ELSE ep.failing_since END AS failing_since,
                EXISTS (SELECT 1 FROM msg) AS recorded
           FROM webhook_endpoints ep WHERE ep.id = $2`,
};

/**
 * An attempt's error as recorded (the attempt's error, its message's and its event's last_error):
 * at most WEBHOOK_ERROR_MAX_LENGTH characters, cut between characters, never inside one.
 */
function recordedError(error: string | null): string | null {
  return cutText(error, WEBHOOK_ERROR_MAX_LENGTH);
}

interface ClaimedMessage {
  event_id: string;
  endpoint_id: string;
  attempts: number;
  type: string;
  payload: Record<string, unknown>;
  created_at: Date;
  url: string;
  source: 'admin' | 'environment';
  secret: string | null;
  previous_secret: string | null;
}

/**
 * Delivers merchant events to the shop's webhook endpoints (Standard Webhooks), from PostgreSQL
 * alone so that both queue backends deliver alike: fan-out, claim, POST, record. Each endpoint
 * has its own retries (the configured schedule, Retry-After honoured), a 410 or days of failures
 * disable it, and a crash mid-POST sends the message again after its lease, under the same
 * webhook-id, so the shop can drop the repeat.
 */
@Injectable()
export class WebhookDispatcher implements BackgroundLoop {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly loop: RelayLoop;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly environmentEndpoint: EnvironmentEndpoint,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.loop = new RelayLoop({
      intervalMs: Math.min(config.sweepIntervalMs, MAX_INTERVAL_MS),
      // A full fan-out batch means more are waiting; then the due messages are sent.
      step: async () => {
        if ((await this.fanOut()) === FAN_OUT_BATCH) return 'more';
        await this.dispatchDue();
        return 'done';
      },
      logger: this.logger,
      failing: (message) => `webhook dispatcher paused, events wait in PostgreSQL: ${message}`,
      working: 'webhook dispatcher: database reachable again',
    });
  }

  private get stopped(): boolean {
    return this.loop.isStopped;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.environmentEndpoint.sync();
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
    // Each POST ends within its timeout; a message left claimed is sent again after its lease.
    await Promise.allSettled([...this.inFlight]);
  }

  /** Hands one batch of new events to their endpoints; answers how many it handed. */
  async fanOut(): Promise<number> {
    const rows = await runPrepared(this.dataSource, FAN_OUT, [FAN_OUT_BATCH, SKIPPED_PREFIX]);
    return rows.length;
  }

  /** Starts the POSTs of due messages, as many as there are free slots; does not wait for them. */
  async dispatchDue(): Promise<number> {
    const free = CONCURRENCY - this.inFlight.size;
    if (free <= 0 || this.stopped) return 0;
    const leaseSeconds = Math.ceil(this.config.webhookTimeoutMs / 1000) + 30;
    const claimed = await runPrepared<ClaimedMessage>(this.dataSource, CLAIM, [
      free,
      PER_ENDPOINT,
      leaseSeconds,
    ]);
    for (const message of claimed) {
      const sending: Promise<void> = this.deliver(message)
        .catch((error: unknown) => {
          // Not recorded: the claim's lease runs out and the message is sent again.
          this.logger.warn(
            `webhook ${message.event_id} to endpoint ${message.endpoint_id} not recorded: ${error instanceof Error ? error.message : String(error)}`,
          );
        })
        .finally(() => this.inFlight.delete(sending));
      this.inFlight.add(sending);
    }
    return claimed.length;
  }

  /** Resolves once nothing is in flight (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private secretsOf(message: ClaimedMessage): string[] {
    if (message.source === 'environment') return this.config.orderWebhookSecrets;
    return [message.secret, message.previous_secret].filter((s): s is string => !!s);
  }

  private async deliver(message: ClaimedMessage): Promise<void> {
    const secrets = this.secretsOf(message);
    const result: WebhookAttempt =
      secrets.length === 0
        ? {
            status: null,
            retryAfter: null,
            excerpt: null,
            error: 'the endpoint has no signing secret (ORDER_WEBHOOK_SECRET)',
            durationMs: 0,
          }
        : await postWebhook({
            url: message.url,
            eventId: message.event_id,
            body: webhookBody({
              type: message.type,
              createdAt: message.created_at,
              payload: message.payload,
            }),
            secrets,
            timeoutMs: this.config.webhookTimeoutMs,
            allowPrivate: this.config.webhookAllowPrivate,
          });
    const attemptsMade = message.attempts + 1;
    const verdict = judgeAttempt(result, attemptsMade, this.config.webhookRetryScheduleMs);
    // Disabled before the message is released: it stays pending and due for when the endpoint is
    // enabled again, and a pass in between must not claim it and POST to the gone endpoint again.
    if (verdict.kind === 'endpoint_gone')
      await this.disable(message, 'the endpoint answered 410 Gone');
    const [recorded] = await runPrepared<{ failing_since: Date | null; recorded: boolean }>(
      this.dataSource,
      RECORD_ATTEMPT,
      [
        message.event_id,
        message.endpoint_id,
        stateAfter(verdict),
        verdict.kind === 'retry' ? verdict.delayMs / 1000 : 0,
        recordedError(result.error),
        displayUrlOf(message.url),
        result.status,
        result.excerpt,
        result.durationMs,
        GAVE_UP_PREFIX,
      ],
    );
    const where = `webhook ${message.event_id} (${message.type}) to ${displayUrlOf(message.url)}`;
    if (!recorded?.recorded) return;
    if (verdict.kind === 'delivered') {
      this.logger.log(
        `${where} delivered on attempt ${attemptsMade}: HTTP ${result.status} in ${result.durationMs} ms`,
      );
      return;
    }
    if (verdict.kind === 'endpoint_gone') return;
    this.logger.warn(
      `${where} attempt ${attemptsMade} failed: ${result.error}${verdict.kind === 'give_up' ? '; no attempts left' : `; next in ${Math.round(verdict.delayMs / 1000)} s`}`,
    );
    const failingSince = recorded.failing_since;
    if (
      failingSince &&
      Date.now() - new Date(failingSince).getTime() >= this.config.webhookDisableAfterMs
    ) {
      await this.disable(
        message,
        `no delivery succeeded since ${new Date(failingSince).toISOString()}`,
      );
    }
  }

  /** Disables the endpoint and tells the shop (its other endpoints) with a merchant event. */
  private async disable(message: ClaimedMessage, reason: string): Promise<void> {
    const [sql, params] = disableEndpointStatement(
      message.endpoint_id,
      reason,
      displayUrlOf(message.url),
    );
    const rows = (await this.dataSource.query(sql, params)) as unknown[];
    if (rows.length > 0) {
      this.logger.warn(
        `webhook endpoint ${message.endpoint_id} (${displayUrlOf(message.url)}) disabled: ${reason}`,
      );
    }
  }
}

function stateAfter(verdict: AttemptVerdict): 'pending' | 'delivered' | 'failed' {
  if (verdict.kind === 'delivered') return 'delivered';
  if (verdict.kind === 'give_up') return 'failed';
  return 'pending';
}
