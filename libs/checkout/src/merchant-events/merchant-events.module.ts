import { Module } from '@nestjs/common';

/** The merchant-events feature's HTTP side (controllers and their services), imported by apps/api. */
@Module({})
export class MerchantEventsModule {}
