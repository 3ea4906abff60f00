import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'bullmq';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { JobData, QUEUES } from '@app/queues';
import { IpnRegistrationJobs } from './ipn-registration.jobs';
import { NotificationVerifier } from './notification-verifier';
import { startQueueWorker } from '@app/queues';

/** The worker's consumers of the notification and registration queues. */
@Injectable()
export class NotificationWorkers implements OnApplicationBootstrap, OnModuleDestroy {
  private workers: Worker[] = [];

  constructor(
    private readonly verifier: NotificationVerifier,
    private readonly registrations: IpnRegistrationJobs,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.workers = [
      startQueueWorker(
        this.config,
        QUEUES.notifications,
        { 'verify-notification': (data) => this.verifier.verify(data) },
        {
          concurrency: 50,
          perSecond: this.config.lookupsPerSecond,
          onExhausted: (job, error) =>
            this.verifier.exhausted(
              (job.data as JobData['verify-notification']).notificationId,
              error,
            ),
        },
      ),
      startQueueWorker(
        this.config,
        QUEUES.registration,
        { 'register-ipn': (data) => this.registrations.process(data) },
        { concurrency: 1 },
      ),
    ];
  }

  /** The running consumers (health and tests look at them). */
  get running(): readonly Worker[] {
    return this.workers;
  }

  /** Graceful: active jobs finish first. (A killed process leaves them to the stall check.) */
  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
  }
}
