import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'bullmq';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { JobData, QUEUES } from '@app/queues';
import { startQueueWorker } from '@app/queues';
import { OrderSyncService } from '../order-sync.service';
import { PollScheduleService } from './poll-schedule.service';

/** Consumes 'sync-order': scheduled polls reschedule themselves; other sources only look up. */
@Injectable()
export class OrderWorkers implements OnApplicationBootstrap, OnModuleDestroy {
  private worker: Worker | null = null;

  constructor(
    private readonly polls: PollScheduleService,
    private readonly sync: OrderSyncService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = startQueueWorker(
      this.config,
      QUEUES.orderSync,
      { 'sync-order': (data) => this.handle(data) },
      { concurrency: 20, perSecond: this.config.lookupsPerSecond },
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }

  private async handle(data: JobData['sync-order']): Promise<void> {
    if (data.source === 'poll') return this.polls.poll(data.orderId);
    await this.sync.syncById(data.orderId, data.source);
  }
}
