import { Module } from '@nestjs/common';

/** The ipn feature's processors, imported by apps/worker. */
@Module({})
export class IpnWorkerModule {}
