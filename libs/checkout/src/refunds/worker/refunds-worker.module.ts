import { Module } from '@nestjs/common';

/** The refunds feature's processors, imported by apps/worker. */
@Module({})
export class RefundsWorkerModule {}
