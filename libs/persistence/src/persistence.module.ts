import {
  DynamicModule,
  Global,
  Logger,
  Module,
  OnApplicationBootstrap,
  Provider,
} from '@nestjs/common';
import { Inject } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { buildDataSourceOptions } from './data-source-options';
import { ENTITIES } from './entities';
import { runMigrationsWithLock } from './migrate-with-lock';
import { SHARED_TOKEN_STORE } from '@app/gateway-client';
import { OrderRepository, PostgresTokenStore } from './repositories';

/** Migrations run before the app serves: OnApplicationBootstrap completes before listen(). */
class MigrationsOnStart implements OnApplicationBootstrap {
  private readonly logger = new Logger('Migrations');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runMigrationsOnStart) return;
    const applied = await this.migrate();
    this.logger.log(
      applied.length > 0
        ? `applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`
        : 'schema is up to date',
    );
  }

  /** The advisory lock is a session's: through a transaction-mode pooler it needs the direct URL. */
  private async migrate() {
    if (this.config.databaseDirectUrl === this.config.databaseUrl) {
      return runMigrationsWithLock(this.dataSource);
    }
    const direct = new DataSource(
      buildDataSourceOptions(this.config.databaseDirectUrl, {
        poolSize: 2,
        connectTimeoutMs: this.config.databaseConnectTimeoutMs,
      }),
    );
    await direct.initialize();
    try {
      return await runMigrationsWithLock(direct);
    } finally {
      await direct.destroy();
    }
  }
}

const PROVIDERS: Provider[] = [
  OrderRepository,
  {
    provide: SHARED_TOKEN_STORE,
    inject: [DataSource],
    useFactory: (dataSource: DataSource) =>
      new PostgresTokenStore(dataSource, new Logger('GatewayTokenStore')),
  },
  {
    provide: MigrationsOnStart,
    inject: [DataSource, SERVICE_CONFIG],
    useFactory: (dataSource: DataSource, config: ServiceConfig) =>
      new MigrationsOnStart(dataSource, config),
  },
];

/**
 * The database for one of the apps. The worker keeps fewer connections than the api: its
 * statements then queue in its own pool instead of running as many backends side by side, which
 * on shared cores would crowd out the api's acknowledgements. Only the worker plans its named
 * statements per execution (see NamedStatementPlans): a named statement added to the api must
 * have one right plan whatever the tables hold.
 */
@Global()
@Module({})
export class PersistenceModule {
  static forApp(app: 'api' | 'worker'): DynamicModule {
    return {
      module: PersistenceModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [SERVICE_CONFIG],
          useFactory: (config: ServiceConfig) => ({
            ...buildDataSourceOptions(config.databaseUrl, {
              poolSize: config.databasePoolSize[app],
              plans: app === 'api' ? 'reusable' : 'per-execution',
              namedStatements: config.databasePreparedStatements,
              connectTimeoutMs: config.databaseConnectTimeoutMs,
            }),
            // Keep retrying quietly at start: readiness reports the database until it answers.
            retryAttempts: 10,
            retryDelay: 1000,
          }),
        }),
        TypeOrmModule.forFeature(ENTITIES),
      ],
      providers: PROVIDERS,
      exports: [TypeOrmModule, OrderRepository, SHARED_TOKEN_STORE],
    };
  }
}
