import { Module } from '@nestjs/common';
import { DeadLetterService } from './dead-letters/dead-letter.service';
import { IpnRegistrationModule } from '../../orders/ipn-registration.module';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { AdminOperationsController } from './admin-operations.controller';
import { AdminOrdersController } from './admin-orders.controller';
import { AdminOrdersService } from './admin-orders.service';
import { AdminPageController } from './admin-page.controller';
import { NotificationInboxService } from './notification-inbox.service';
import { QueueDashboard } from './queue-dashboard';
import { ReconciliationService } from '../reconciliation.service';
import { StuckOrdersService } from './stuck-orders.service';

/**
 * The admin feature's HTTP side: order search and actions, the notification inbox, dead-letter
 * jobs, reconciliation, the queue dashboard (/admin/queues) and the console (/admin).
 */
@Module({
  imports: [OrdersCoreModule, IpnRegistrationModule],
  controllers: [AdminOrdersController, AdminOperationsController, AdminPageController],
  providers: [
    DeadLetterService,
    AdminOrdersService,
    StuckOrdersService,
    NotificationInboxService,
    ReconciliationService,
    QueueDashboard,
  ],
})
export class AdminModule {}
