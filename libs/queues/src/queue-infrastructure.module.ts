import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JobProducer } from './job-producer';
import { JobRunner } from './job-runner';
import { QueueStoreWatch } from './queue-store-watch';
import { RedisConnection } from './redis-client';

/** Both processes: the service's own Redis connection and the one producer of jobs. */
@Global()
@Module({
  providers: [RedisConnection, JobProducer],
  exports: [RedisConnection, JobProducer],
})
export class QueueInfrastructureModule {}

/**
 * The worker process only: runs every @QueueJob class its feature modules provide, and watches
 * for the queues' store coming back empty (QueueStoreWatch, with every @RequeuesLostJobs class).
 */
@Module({
  imports: [DiscoveryModule],
  providers: [JobRunner, QueueStoreWatch],
  exports: [JobRunner, QueueStoreWatch],
})
export class JobRunnerModule {}
