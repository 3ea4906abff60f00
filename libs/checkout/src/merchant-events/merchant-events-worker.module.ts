import { Module } from '@nestjs/common';

/** The merchant-events feature's processors, imported by apps/worker. */
@Module({})
export class MerchantEventsWorkerModule {}
