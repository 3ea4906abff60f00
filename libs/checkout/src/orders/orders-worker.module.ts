import { Module } from '@nestjs/common';

/** The orders feature's processors, imported by apps/worker. */
@Module({})
export class OrdersWorkerModule {}
