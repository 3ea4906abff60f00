import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JobProducer } from './job-producer';
import { JobRunner } from './job-runner';
import { RedisConnection } from './redis-client';

/** Both processes: the service's own Redis connection and the one producer of jobs. */
@Global()
@Module({
  providers: [RedisConnection, JobProducer],
  exports: [RedisConnection, JobProducer],
})
export class QueueInfrastructureModule {}

/** The worker process only: runs every @QueueJob class its feature modules provide. */
@Module({
  imports: [DiscoveryModule],
  providers: [JobRunner],
  exports: [JobRunner],
})
export class JobRunnerModule {}
