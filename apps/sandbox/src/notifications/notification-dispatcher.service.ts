import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { SandboxConfig } from '@app/config';
import { NOTIFICATION_DEFAULTS } from '../gateway-choices';
import { IpnRegistry } from '../ipn/ipn-registry.service';
import type { SandboxOrder } from '../orders/sandbox-order';
import { SANDBOX_CONFIG } from '../sandbox-config.token';

export type NotificationType = 'IPNCHANGE' | 'RECURRING';
export type DeliveryMode = 'deliver' | 'drop' | 'delay' | 'duplicate';

export interface DeliverySettings {
  mode: DeliveryMode;
  delayMs: number;
  copies: number;
}

export interface NotificationAttempt {
  at: string;
  httpStatus: number | null;
  error: string | null;
}

export interface NotificationRecord {
  id: number;
  orderTrackingId: string;
  merchantReference: string;
  type: NotificationType;
  url: string;
  method: 'GET' | 'POST';
  mode: DeliveryMode;
  copy: number;
  state: 'scheduled' | 'delivering' | 'acknowledged' | 'dropped' | 'gave_up';
  attempts: NotificationAttempt[];
}

/**
 * Calls the order's registered IPN URL asynchronously, never from the API request itself:
 * each delivery retries with doubling waits until the receiver acknowledges with HTTP 200.
 */
@Injectable()
export class NotificationDispatcher implements OnModuleDestroy {
  private readonly logger = new Logger('SandboxNotifications');
  private readonly closing = new AbortController();
  private readonly log: NotificationRecord[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private nextId = 1;
  private settings: DeliverySettings = {
    mode: 'deliver',
    delayMs: NOTIFICATION_DEFAULTS.delayMs,
    copies: NOTIFICATION_DEFAULTS.copies,
  };

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    private readonly ipns: IpnRegistry,
  ) {}

  configure(settings: Partial<DeliverySettings> & { mode: DeliveryMode }): DeliverySettings {
    this.settings = {
      mode: settings.mode,
      delayMs: settings.delayMs ?? NOTIFICATION_DEFAULTS.delayMs,
      copies: settings.copies ?? NOTIFICATION_DEFAULTS.copies,
    };
    return this.settings;
  }

  get current(): DeliverySettings {
    return this.settings;
  }

  records(orderTrackingId?: string): NotificationRecord[] {
    return orderTrackingId
      ? this.log.filter((record) => record.orderTrackingId === orderTrackingId)
      : [...this.log];
  }

  /** A recurring charge names the subscriber's account_number instead of the order id. */
  notify(order: SandboxOrder, type: NotificationType): void {
    const registration = this.ipns.byIpnId(order.notificationId);
    if (!registration) return;
    const { mode, delayMs, copies } = this.settings;
    const count = mode === 'duplicate' ? Math.max(1, copies) : 1;
    for (let copy = 1; copy <= count; copy += 1) {
      const record: NotificationRecord = {
        id: this.nextId++,
        orderTrackingId: order.orderTrackingId,
        merchantReference: order.merchantReference,
        type,
        url: registration.url,
        method: registration.method,
        mode,
        copy,
        state: mode === 'drop' ? 'dropped' : 'scheduled',
        attempts: [],
      };
      this.log.push(record);
      if (this.log.length > this.config.notificationLogLimit) this.log.shift();
      if (mode === 'drop') continue;
      const run = this.deliver(record, mode === 'delay' ? delayMs : 0).catch((error: unknown) =>
        this.logger.warn(`notification ${record.id} stopped: ${String(error)}`),
      );
      this.inFlight.add(run);
      void run.finally(() => this.inFlight.delete(run));
    }
  }

  /** Resolves when every delivery under way has finished (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async onModuleDestroy(): Promise<void> {
    this.closing.abort();
    await this.settle();
  }

  private async deliver(record: NotificationRecord, initialDelayMs: number): Promise<void> {
    if (initialDelayMs > 0 && !(await this.sleep(initialDelayMs))) return;
    record.state = 'delivering';
    for (let attempt = 1; attempt <= this.config.ipnMaxAttempts; attempt += 1) {
      if (this.closing.signal.aborted) return;
      const outcome = await this.attempt(record);
      record.attempts.push({ at: new Date().toISOString(), ...outcome });
      if (outcome.acknowledged) {
        record.state = 'acknowledged';
        // The order, never the URL: its path carries the receiver's secret.
        this.logger.log(
          `notification ${record.type} for ${record.merchantReference} acknowledged on attempt ${attempt}`,
        );
        return;
      }
      if (attempt < this.config.ipnMaxAttempts) {
        const wait = this.config.ipnRetryBaseMs * 2 ** (attempt - 1);
        if (!(await this.sleep(wait))) return;
      }
    }
    record.state = 'gave_up';
    this.logger.warn(
      `notification ${record.type} for ${record.merchantReference} given up after ${this.config.ipnMaxAttempts} attempts`,
    );
  }

  private async attempt(
    record: NotificationRecord,
  ): Promise<{ acknowledged: boolean; httpStatus: number | null; error: string | null }> {
    const fields = {
      OrderTrackingId: record.orderTrackingId,
      OrderNotificationType: record.type,
      OrderMerchantReference: record.merchantReference,
    };
    const signal = AbortSignal.any([
      this.closing.signal,
      AbortSignal.timeout(this.config.ipnDeliveryTimeoutMs),
    ]);
    try {
      let response: Response;
      if (record.method === 'GET') {
        const url = new URL(record.url);
        for (const [key, value] of Object.entries(fields)) url.searchParams.set(key, value);
        response = await fetch(url, { method: 'GET', signal });
      } else {
        response = await fetch(record.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(fields),
          signal,
        });
      }
      const text = await response.text();
      return {
        acknowledged: acknowledges(response.status, text),
        httpStatus: response.status,
        error: null,
      };
    } catch (error) {
      return { acknowledged: false, httpStatus: null, error: (error as Error).name ?? 'Error' };
    }
  }

  /** False when the sandbox is closing. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.closing.signal.aborted) return resolve(false);
      const timer = setTimeout(() => {
        this.closing.signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve(false);
      };
      this.closing.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** HTTP 200, and not a body saying "received but not processed" (status 500). */
function acknowledges(httpStatus: number, body: string): boolean {
  if (httpStatus !== 200) return false;
  try {
    const parsed = JSON.parse(body) as { status?: unknown };
    return !(typeof parsed === 'object' && parsed !== null && parsed.status === 500);
  } catch {
    return true;
  }
}
