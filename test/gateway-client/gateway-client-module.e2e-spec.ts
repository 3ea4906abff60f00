import { Test } from '@nestjs/testing';
import { OrderTrackingId } from '@app/domain';
import { ServiceConfigModule } from '@app/config';
import { GatewayAccounts, GatewayClientModule } from '@app/gateway-client';
import { RedisConnection } from '@app/queues';
import { Global, Module } from '@nestjs/common';
import { RunningSandbox, startSandbox } from '../support/sandbox';

/** RedisConnection alone, without BullMQ: what QueueInfrastructureModule provides globally. */
@Global()
@Module({ providers: [RedisConnection], exports: [RedisConnection] })
class RedisOnlyModule {}

describe('GatewayClientModule', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
    process.env.PESAPAL_BASE_URL = sandbox.baseUrl;
  });
  afterAll(async () => {
    delete process.env.PESAPAL_BASE_URL;
    await sandbox.close();
  });

  it('provides a client from the service config whose token is shared between app instances', async () => {
    const boot = () =>
      Test.createTestingModule({
        imports: [ServiceConfigModule, RedisOnlyModule, GatewayClientModule],
      }).compile();
    const first = await boot();
    const second = await boot();
    try {
      await sandbox.control.resetRequests();
      const lookup = OrderTrackingId('00000000-0000-4000-8000-000000000000');
      expect(
        await first.get(GatewayAccounts).client('default').getTransactionStatus(lookup),
      ).toEqual({
        kind: 'not_found',
      });
      expect(
        await second.get(GatewayAccounts).client('default').getTransactionStatus(lookup),
      ).toEqual({
        kind: 'not_found',
      });
      const expectedTokens = process.env.QUEUE_BACKEND === 'redis' ? 1 : 2;
      expect((await sandbox.control.requests()).counts.RequestToken).toBe(expectedTokens);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
