import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { SandboxConfig } from '@app/config';
import { PUSH_FAILURE_CODES, pushScenarioFor } from '../gateway-choices';
import { SANDBOX_CONFIG } from '../sandbox-config.token';
import type { SandboxOrder } from './sandbox-order';
import { SettlementService } from './settlement.service';

/** Plays the customer's phone: after pushDelayMs the prompt resolves by the number's last digit. */
@Injectable()
export class PushSimulator implements OnModuleDestroy {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    private readonly settlement: SettlementService,
  ) {}

  prompt(order: SandboxOrder): void {
    const scenario = pushScenarioFor(order.msisdn ?? '');
    if (scenario === 'never') return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      // The merchant may have cancelled, or a test settled the order, meanwhile.
      if (order.state !== 'pending') return;
      const instrument = order.network ?? 'mpesa';
      if (scenario === 'completed') {
        this.settlement.settle(order, { outcome: 'completed', instrument });
      } else {
        this.settlement.settle(order, {
          outcome: 'failed',
          instrument,
          failureCode: PUSH_FAILURE_CODES[scenario],
        });
      }
    }, this.config.pushDelayMs);
    this.timers.add(timer);
  }

  onModuleDestroy(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
