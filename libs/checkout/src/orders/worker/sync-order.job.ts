import { Injectable } from '@nestjs/common';
import { QueueJob, QueueJobHandler, SyncOrderData } from '@app/queues';
import { OrderSyncService } from '../order-sync.service';
import { PollScheduleService } from './poll-schedule.service';

/** Scheduled polls reschedule themselves; other sources only look the order up. */
@Injectable()
@QueueJob('sync-order')
export class SyncOrderJob implements QueueJobHandler<'sync-order'> {
  constructor(
    private readonly polls: PollScheduleService,
    private readonly sync: OrderSyncService,
  ) {}

  async run(data: SyncOrderData): Promise<void> {
    if (data.source === 'poll') return this.polls.poll(data.orderId);
    await this.sync.syncById(data.orderId, data.source);
  }
}
