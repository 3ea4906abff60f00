import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DEFAULT_ACCOUNT } from '@app/config';
import { IpnRegistrationEntity } from '@app/persistence';
import {
  JobProducer,
  LostJobs,
  QueueJob,
  QueueJobHandler,
  QUEUES,
  RegisterIpnData,
  RequeuesLostJobs,
} from '@app/queues';
import { IpnRegistrationService, loggableIpnUrl } from '../../orders/ipn-registration.service';

/**
 * Registers our notification URL when the worker starts without a stored ipn_id: the
 * gateway allows one registration about every 8 seconds and answers 409 otherwise, so a 409
 * throws and the catalogue's fixed backoff waits out the window. (A checkout that finds no
 * ipn_id registers one at once in the api: IpnRegistrationService.registerOnce.)
 */
@Injectable()
@QueueJob('register-ipn')
export class RegisterIpnJob implements QueueJobHandler<'register-ipn'> {
  private readonly logger = new Logger(RegisterIpnJob.name);

  constructor(private readonly registration: IpnRegistrationService) {}

  async run(data: RegisterIpnData): Promise<void> {
    const account = data.account ?? DEFAULT_ACCOUNT;
    if (
      !this.registration.accountIds.includes(account) ||
      data.url !== this.registration.url(account) ||
      data.method !== this.registration.method
    ) {
      this.logger.warn(
        { account, url: loggableIpnUrl(data.url) },
        'skipping registration of a URL this service no longer uses',
      );
      return;
    }
    await this.registration.register(account);
  }
}

/**
 * When the worker starts, queues a registration unless Postgres already holds its ipn_id; and
 * again when the registration queue's store came back empty, in case its job was lost.
 */
@Injectable()
@RequeuesLostJobs(QUEUES.registration, 'IPN registrations')
export class IpnRegistrationAtStart implements OnApplicationBootstrap, LostJobs {
  private readonly logger = new Logger(IpnRegistrationAtStart.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly registration: IpnRegistrationService,
    private readonly jobs: JobProducer,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.requeueLost();
  }

  /** Queues each account's registration Postgres has no ipn_id for; how many it queued. */
  async requeueLost(): Promise<number> {
    let queued = 0;
    // Each account registers its own URL, once per cluster (the job's id dedupes replicas).
    for (const account of this.registration.accountIds) {
      try {
        const url = this.registration.url(account);
        const stored = await this.dataSource
          .getRepository(IpnRegistrationEntity)
          .findOneBy({ url, method: this.registration.method });
        if (stored) continue;
        await this.jobs.add('register-ipn', { url, method: this.registration.method, account });
        queued += 1;
      } catch (error) {
        this.logger.warn(
          `IPN registration of account ${account} not requested at start: ${(error as Error).message}`,
        );
      }
    }
    return queued;
  }
}
