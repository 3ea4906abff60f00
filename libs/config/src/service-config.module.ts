import { Global, Module } from '@nestjs/common';
import { ConfigModule, ConfigService, registerAs } from '@nestjs/config';
import { loadServiceConfig, ServiceConfig } from './service-config';

export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');

const serviceConfig = registerAs('service', () => loadServiceConfig());

/**
 * Validates the environment once at start through @nestjs/config and exposes the typed result
 * under SERVICE_CONFIG; nothing else reads process.env.
 */
@Global()
@Module({
  imports: [ConfigModule.forRoot({ ignoreEnvFile: true, cache: true, load: [serviceConfig] })],
  providers: [
    {
      provide: SERVICE_CONFIG,
      inject: [ConfigService],
      useFactory: (config: ConfigService): ServiceConfig =>
        config.getOrThrow<ServiceConfig>('service'),
    },
  ],
  exports: [SERVICE_CONFIG],
})
export class ServiceConfigModule {}
