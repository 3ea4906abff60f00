import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { IpnRegistrationEntity } from '@app/persistence';
import { JobData, jobOptions, JOB_QUEUE } from '@app/queues';
import { Queue } from 'bullmq';
import { queueConnectionFor } from '@app/queues';
import { IpnRegistrationService, loggableIpnUrl } from '../ipn-registration.service';

/**
 * Registers our notification URL when the worker starts (unless Postgres already holds its
 * ipn_id) and whenever an admin asks, always through the 'register-ipn' job: the gateway allows
 * one registration about every 8 seconds and answers 409 otherwise, so the job retries later.
 */
@Injectable()
export class IpnRegistrationJobs implements OnApplicationBootstrap {
  private readonly logger = new Logger(IpnRegistrationJobs.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly registration: IpnRegistrationService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      const stored = await this.dataSource
        .getRepository(IpnRegistrationEntity)
        .findOneBy({ url: this.registration.url, method: this.registration.method });
      if (stored) return;
      await this.request();
    } catch (error) {
      this.logger.warn(`IPN registration not requested at start: ${(error as Error).message}`);
    }
  }

  /** Queues a registration (the admin's "register now"); one waits at a time. */
  async request(): Promise<string | undefined> {
    const data: JobData['register-ipn'] = {
      url: this.registration.url,
      method: this.registration.method,
    };
    const queue = new Queue(JOB_QUEUE['register-ipn'], {
      connection: queueConnectionFor(this.config),
      prefix: this.config.queuePrefix,
    });
    try {
      const job = await queue.add('register-ipn', data, {
        ...jobOptions('register-ipn', data),
        deduplication: { id: `register-ipn-${data.method}-${data.url}` },
      });
      return job.id;
    } finally {
      await queue.close();
    }
  }

  /** The processor: a 409 throws, and the job's fixed backoff waits out the window. */
  async process(data: JobData['register-ipn']): Promise<void> {
    if (data.url !== this.registration.url || data.method !== this.registration.method) {
      this.logger.warn(
        { url: loggableIpnUrl(data.url) },
        'skipping registration of a URL this service no longer uses',
      );
      return;
    }
    await this.registration.register();
  }
}
