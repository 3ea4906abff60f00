import { Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { Counter, register } from 'prom-client';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { QUEUE_NAMES, QueueName } from './job-catalogue';
import {
  PostgresQueueStoreMarkers,
  QueueStoreMarkers,
  RedisQueueStoreMarkers,
} from './queue-store-markers';
import { LOST_JOBS, LostJobs } from './lost-jobs';
import { RedisConnection } from './redis-client';

/** How often each worker looks for its queues' marks (and at once when Redis reconnects). */
export const STORE_CHECK_INTERVAL_MS = 1000;

const EMPTIED = 'queue_store_emptied_total';

/** Registered once per process (the e2e suites boot several workers in one). */
function emptiedCounter(): Counter<'queue'> {
  const existing = register.getSingleMetric(EMPTIED) as Counter<'queue'> | undefined;
  if (existing) return existing;
  const counter = new Counter({
    name: EMPTIED,
    help: "Times a queue's store was found empty (Redis restarted without persistence, flushed, or the PostgreSQL backend's tables emptied) and its jobs re-derived from PostgreSQL, counted by the one worker that did it.",
    labelNames: ['queue'] as const,
  });
  for (const queue of QUEUE_NAMES) counter.inc({ queue }, 0);
  return counter;
}

/** What a recovery re-derived: `what` and how many, for the one log line. */
interface Recovered {
  what: string;
  count: number;
}

/** The queue's repeatable jobs (the JobRunner registers them again). */
type Rescheduler = (queues: readonly QueueName[]) => Promise<number>;

/**
 * Notices, without a restart, that the queues' store came back empty, and re-derives what it
 * held from PostgreSQL, which holds every piece of work: the schedules of the repeatable jobs
 * (JobRunner) and the rows of every @RequeuesLostJobs class (notifications, polls, refund follow-ups, the IPN
 * registration) made due again at once instead of after their lease. Each worker plants a mark
 * in each queue's store at start and looks for them every second; of the workers that find one
 * gone, the one that plants it again recovers that queue (set-if-absent), once per wipe.
 * The webhook dispatcher needs none of it: its claims live in PostgreSQL alone.
 */
@Injectable()
export class QueueStoreWatch implements OnModuleDestroy {
  private readonly logger = new Logger('QueueStoreWatch');
  private readonly markers: QueueStoreMarkers | null;
  private readonly emptied = emptiedCounter();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** The marks were planted or seen once: only then does a missing one mean a wipe. */
  private armed = false;
  private stopped = false;
  private reschedule: Rescheduler = async () => 0;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly redis: RedisConnection,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    @Optional() dataSource?: DataSource,
  ) {
    if (redis.client) this.markers = new RedisQueueStoreMarkers(redis.client, config);
    else this.markers = dataSource ? new PostgresQueueStoreMarkers(dataSource, config) : null;
  }

  /** Starts watching (the JobRunner, once its workers run): `reschedule` registers schedules. */
  start(reschedule: Rescheduler): void {
    if (!this.markers || this.timer) return;
    this.reschedule = reschedule;
    this.timer = setInterval(() => void this.check(), STORE_CHECK_INTERVAL_MS);
    // A restarted Redis is looked at as soon as it answers, not a tick later.
    this.redis.client?.on('ready', () => void this.check());
    void this.check();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One look (overlapping calls ask the look under way for another round); tests await it. */
  check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.look().catch(() => undefined);
      } while (this.again && !this.stopped);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async look(): Promise<void> {
    const markers = this.markers;
    if (!markers || this.stopped) return;
    // The store cannot be asked (down, restarting): the queues' own errors say so; look again later.
    const missing = await markers.missing(QUEUE_NAMES);
    if (!this.armed) {
      // At start (or once the store first answers) a missing mark is no wipe: a new deployment, or
      // one that lost its store while no worker ran (leases and the start's scheduling cover that).
      for (const queue of missing) await markers.plant(queue);
      this.armed = true;
      return;
    }
    const owned: QueueName[] = [];
    for (const queue of missing) if (await markers.plant(queue)) owned.push(queue);
    if (owned.length > 0) await this.recover(owned);
  }

  private async recover(queues: QueueName[]): Promise<void> {
    const started = Date.now();
    for (const queue of queues) this.emptied.inc({ queue });
    const recovered: Recovered[] = [];
    const failures: string[] = [];
    const attempt = async (what: string, work: () => Promise<number>) => {
      try {
        recovered.push({ what, count: await work() });
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`);
      }
    };
    await attempt('schedules', () => this.reschedule(queues));
    await Promise.all(
      this.lostJobClasses()
        .filter(({ queue }) => queues.includes(queue))
        .map(({ what, instance }) => attempt(what, () => instance.requeueLost())),
    );
    const ms = Date.now() - started;
    const summary = recovered.map(({ what, count }) => `${count} ${what}`).join(', ');
    const line = `queue store came back empty (${queues.join(', ')}): re-derived from PostgreSQL in ${ms} ms: ${summary}`;
    if (failures.length === 0) this.logger.warn({ queues, recovered, ms }, line);
    else {
      // What failed comes back as before a watch existed: rows after their lease, schedules at start.
      this.logger.error(
        { queues, recovered, ms, failures },
        `${line}; not re-derived: ${failures.join('; ')}`,
      );
    }
  }

  private lostJobClasses(): { queue: QueueName; what: string; instance: LostJobs }[] {
    const found: { queue: QueueName; what: string; instance: LostJobs }[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const meta = wrapper.metatype
        ? this.reflector.get<{ queue: QueueName; what: string } | undefined>(
            LOST_JOBS,
            wrapper.metatype,
          )
        : undefined;
      if (meta && wrapper.instance) found.push({ ...meta, instance: wrapper.instance as LostJobs });
    }
    return found;
  }
}
