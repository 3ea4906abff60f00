import { Module } from '@nestjs/common';

/** The admin feature's processors, imported by apps/worker. */
@Module({})
export class AdminWorkerModule {}
