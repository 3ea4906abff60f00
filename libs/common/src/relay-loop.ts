import type { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';

/** A worker's background loop: started once the app is up, stopped before its modules close. */
export type BackgroundLoop = OnApplicationBootstrap & OnModuleDestroy;

/** What one step of a relay did: more is due at once, nothing more this pass, or stop the pass. */
export type RelayStep = 'more' | 'done' | 'halt';

export interface RelayLoopOptions {
  /** Passes start at least this often, woken or not. */
  intervalMs: number;
  /** Claims and relays one batch. A throw halts the pass and is reported like an outage. */
  step: () => Promise<RelayStep>;
  logger: Logger;
  /** The warning for a failing step (said once while the same failure repeats). */
  failing: (message: string) => string;
  /** The line said when a step works again after a failure. */
  working: string;
  /** After a pass whose steps ran out (not one halted): e.g. look again soon for room. */
  afterPass?: () => void;
}

/**
 * The claim-and-relay loop of a worker (the inbox relay, the webhook dispatcher): one pass at a
 * time, on a timer and whenever woken; a pass repeats its step while more is due, a wake during a
 * pass asks for one more round, and an outage, which fails every pass alike, is said once.
 */
export class RelayLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private lastProblem = '';

  constructor(private readonly options: RelayLoopOptions) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Starts the timer and a first pass. */
  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.intervalMs);
    this.wake();
  }

  /** Starts a pass, or asks the pass under way for one more round. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => (this.running = undefined));
  }

  /** Stops the timer and waits for the pass under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async pass(): Promise<void> {
    do {
      this.again = false;
      let step: RelayStep;
      do {
        step = await this.options.step().then(
          (done) => {
            if (this.lastProblem) this.options.logger.log(this.options.working);
            this.lastProblem = '';
            return done;
          },
          (error: unknown) => {
            const message = error instanceof Error ? error.message : String(error);
            if (message !== this.lastProblem) {
              this.options.logger.warn(this.options.failing(message));
            }
            this.lastProblem = message;
            return 'halt' as const;
          },
        );
      } while (step === 'more' && !this.stopped);
      if (step === 'halt') return;
    } while (this.again && !this.stopped);
    if (!this.stopped) this.options.afterPass?.();
  }
}
