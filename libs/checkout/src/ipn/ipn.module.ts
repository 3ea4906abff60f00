import { Module } from '@nestjs/common';

/** The ipn feature's HTTP side (controllers and their services), imported by apps/api. */
@Module({})
export class IpnModule {}
