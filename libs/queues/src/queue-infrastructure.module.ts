import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { queueConnectionFor } from './queue-backend';
import { RedisConnection } from './redis-client';

@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [SERVICE_CONFIG],
      useFactory: (config: ServiceConfig) => ({
        connection: queueConnectionFor(config),
        prefix: config.queuePrefix,
      }),
    }),
  ],
  providers: [RedisConnection],
  exports: [RedisConnection, BullModule],
})
export class QueueInfrastructureModule {}
