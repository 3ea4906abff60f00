import { Injectable } from '@nestjs/common';
import { QueueJob, QueueJobHandler, SyncOrderData } from '@app/queues';
import { PollScheduleService } from './poll-schedule.service';

/** One scheduled poll of an unpaid order; it schedules the next one itself. */
@Injectable()
@QueueJob('sync-order')
export class SyncOrderJob implements QueueJobHandler<'sync-order'> {
  constructor(private readonly polls: PollScheduleService) {}

  run(data: SyncOrderData): Promise<void> {
    return this.polls.poll(data.orderId);
  }
}
