import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { IpnRegistrationModule } from '../ipn/ipn-registration.module';
import { OrdersCoreModule } from '../orders/orders-core.module';
import { AdminOperationsController } from './admin-operations.controller';
import { AdminOrdersController } from './admin-orders.controller';
import { AdminOrdersService } from './admin-orders.service';
import { AdminPageController } from './admin-page.controller';
import { allQueuesProvider, QUEUE_NAMES } from './admin-queues';
import { DeadLetterService } from './dead-letter.service';
import { NotificationInboxService } from './notification-inbox.service';
import { OrderCancelService } from './order-cancel.service';
import { QueueDashboard } from './queue-dashboard';
import { ReconciliationService } from './reconciliation.service';
import { StuckOrdersService } from './stuck-orders.service';

/**
 * The admin feature's HTTP side: order search and actions, the notification inbox, dead-letter
 * jobs, reconciliation, the queue dashboard (/admin/queues) and the operations page (/admin).
 */
@Module({
  imports: [
    OrdersCoreModule,
    IpnRegistrationModule,
    BullModule.registerQueue(...QUEUE_NAMES.map((name) => ({ name }))),
  ],
  controllers: [AdminOrdersController, AdminOperationsController, AdminPageController],
  providers: [
    allQueuesProvider,
    AdminOrdersService,
    StuckOrdersService,
    OrderCancelService,
    NotificationInboxService,
    DeadLetterService,
    ReconciliationService,
    QueueDashboard,
  ],
})
export class AdminModule {}
