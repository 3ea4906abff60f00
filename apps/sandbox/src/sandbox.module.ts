import { DynamicModule, Module } from '@nestjs/common';
import type { SandboxConfig } from '@app/config';
import { LoggingModule } from '@app/common';
import { BearerGuard } from './auth/bearer.guard';
import { TokenService } from './auth/token.service';
import { ControlController } from './control/control.controller';
import { TrafficService } from './control/traffic.service';
import { IpnController } from './gateway/ipn.controller';
import { TokenController } from './gateway/token.controller';
import { TransactionsController } from './gateway/transactions.controller';
import { HostedPageController } from './hosted/hosted-page.controller';
import { IpnRegistry } from './ipn/ipn-registry.service';
import { NotificationDispatcher } from './notifications/notification-dispatcher.service';
import { MerchantActionsService } from './orders/merchant-actions.service';
import { OrderStore } from './orders/order-store';
import { OrderService } from './orders/order.service';
import { PushSimulator } from './orders/push-simulator.service';
import { SettlementService } from './orders/settlement.service';
import { SANDBOX_CONFIG } from './sandbox-config.token';

/** The gateway stand-in: contract endpoints, hosted page, push simulation, IPN delivery. */
@Module({})
export class SandboxModule {
  static forRoot(config: SandboxConfig): DynamicModule {
    return {
      module: SandboxModule,
      imports: [
        {
          module: class SandboxConfigModule {},
          global: true,
          providers: [{ provide: SANDBOX_CONFIG, useValue: config }],
          exports: [SANDBOX_CONFIG],
        },
        LoggingModule.forRoot('sandbox', SANDBOX_CONFIG),
      ],
      controllers: [
        TokenController,
        IpnController,
        TransactionsController,
        HostedPageController,
        ...(config.controlEnabled ? [ControlController] : []),
      ],
      providers: [
        TokenService,
        BearerGuard,
        IpnRegistry,
        OrderStore,
        OrderService,
        MerchantActionsService,
        SettlementService,
        PushSimulator,
        NotificationDispatcher,
        TrafficService,
      ],
    };
  }
}
