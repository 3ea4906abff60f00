import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import {
  COMMIT_WITHOUT_FLUSH_WAIT,
  OPEN_NOTIFICATION_STATUSES_SQL,
  PreparedStatement,
  runPrepared,
} from '@app/persistence';
import { BackgroundLoop, markInTrace, RelayLoop } from '@app/common';
import {
  claimLeaseSeconds,
  JobProducer,
  LostJobs,
  NOTIFICATIONS_PER_JOB,
  QUEUES,
  RequeuesLostJobs,
  VerifyNotificationData,
} from '@app/queues';
import { decodeInboxSignal, HandedOverRow, INBOX_CHANNEL } from '../inbox-channel';

/** Rows claimed per statement; a full batch means more are due and the relay goes on at once. */
const BATCH = 500;
/** The relay looks at least this often, signal or not (stuck rows, retries of unmatched ones). */
const MAX_INTERVAL_MS = 1000;
const RELISTEN_AFTER_MS = 1000;
/**
 * After a signal, wait this long for more, unless a job's worth has come: one queue call, one job
 * and its moves in the queue, one read and one write of its orders then carry many rows. No one
 * waits on a verification (the shop's answer was sent when the row was stored, a customer's return
 * looks the order up itself), and at a few hundred notifications a second a job of 60 costs the
 * worker about a third less CPU per notification than jobs of 12.
 */
export const RELAY_GATHER_MS = 100;
/** While the queue is full, look again this soon for room. */
const ROOM_RETRY_MS = 50;
/** Handed-over rows a relay keeps waiting for room at most; beyond, they come due and are claimed. */
const HANDOVER_KEPT_MAX = 10_000;
/** A handed-over row this close to coming due is left to the claim (no second job for it). */
const HANDOVER_MARGIN_MS = 500;
/** Jobs one pass queues at most: its handed-over rows' and its claim's. */
const PASS_JOBS_MAX = Math.ceil(BATCH / NOTIFICATIONS_PER_JOB) + 1;
/** The queue's waiting jobs are counted at least this often. */
const COUNT_EVERY_MS = 1000;

/**
 * Claims due rows with a lease: a row whose job is lost comes due again when it lapses. With $3
 * (the queue answered a moment ago), new rows are marked queued in the same write, one write per
 * row relayed; a claim whose jobs are then not added is given back as received (GIVE_BACK).
 * Without it (the queue did not answer), rows are marked only once their jobs are added.
 */
const CLAIM: PreparedStatement = {
  name: 'inbox-claim-due',
  text: `WITH due AS (
           SELECT id FROM ipn_notifications
            WHERE status IN ${OPEN_NOTIFICATION_STATUSES_SQL} AND next_attempt_at <= now()
            ORDER BY next_attempt_at
            LIMIT $1
            FOR UPDATE SKIP LOCKED)
         UPDATE ipn_notifications n
            SET next_attempt_at = now() + make_interval(secs => $2::double precision),
                status = CASE WHEN $3::boolean AND n.status = 'received' THEN 'queued'
                              ELSE n.status END
           FROM due WHERE n.id = due.id AND ${COMMIT_WITHOUT_FLUSH_WAIT}
         RETURNING n.id, n.order_tracking_id, n.attempts, n.trace_parent,
                   (extract(epoch FROM n.next_attempt_at) * 1000)::float8 AS claimed_until`,
};

/*
 * Marking (after a claim that could not) and giving back skip rows another transaction holds: that is a verifier changing the
 * row already (its job started as soon as it was queued), and waiting for it could deadlock,
 * since a verifier's cover locks several rows of one order while this locks a whole batch. A row
 * skipped here keeps its lease and comes due again if nothing else settled it.
 */
export const MARK_QUEUED: PreparedStatement = {
  name: 'inbox-mark-queued',
  text: `UPDATE ipn_notifications SET status = 'queued'
          WHERE id IN (SELECT id FROM ipn_notifications
                        WHERE id = ANY($1::uuid[]) AND status = 'received'
                          FOR UPDATE SKIP LOCKED)
            AND ${COMMIT_WITHOUT_FLUSH_WAIT}`,
};

export const GIVE_BACK: PreparedStatement = {
  name: 'inbox-give-back',
  text: `UPDATE ipn_notifications
            SET next_attempt_at = now(),
                status = CASE WHEN status = 'queued' THEN 'received' ELSE status END
          WHERE id IN (SELECT id FROM ipn_notifications
                        WHERE id = ANY($1::uuid[]) AND status IN ${OPEN_NOTIFICATION_STATUSES_SQL}
                          FOR UPDATE SKIP LOCKED)
            AND ${COMMIT_WITHOUT_FLUSH_WAIT}`,
};

/**
 * Open rows within a lease of coming due: the claimed ones, whose jobs a store that came back
 * empty lost (a row waiting out an unmatched retry is among them only if it was due within a
 * lease anyway). Through the (status, next_attempt_at) index.
 */
const LEASED: PreparedStatement = {
  name: 'inbox-leased',
  text: `SELECT id, attempts, next_attempt_at::text AS lease_ends
           FROM ipn_notifications
          WHERE status IN ${OPEN_NOTIFICATION_STATUSES_SQL}
            AND next_attempt_at > now()
            AND next_attempt_at <= now() + make_interval(secs => $1::double precision)`,
};

/**
 * Rows whose jobs were lost, due again as received (as GIVE_BACK does), unless they moved on
 * since they were read (verified, or claimed anew: their attempts or their lease changed).
 */
const REQUEUE_LOST: PreparedStatement = {
  name: 'inbox-requeue-lost',
  text: `UPDATE ipn_notifications
            SET next_attempt_at = now(),
                status = CASE WHEN status = 'queued' THEN 'received' ELSE status END
          WHERE id IN (SELECT n.id FROM ipn_notifications n
                         JOIN unnest($1::uuid[], $2::int[], $3::timestamptz[])
                              AS lost(id, attempts, lease_ends)
                           ON n.id = lost.id AND n.attempts = lost.attempts
                          AND n.next_attempt_at = lost.lease_ends
                        WHERE n.status IN ${OPEN_NOTIFICATION_STATUSES_SQL}
                          FOR UPDATE OF n SKIP LOCKED)
            AND ${COMMIT_WITHOUT_FLUSH_WAIT}
         RETURNING id`,
};

interface LeasedRow {
  id: string;
  attempts: number;
  lease_ends: string;
}

interface ClaimedRow {
  id: string;
  order_tracking_id: string | null;
  attempts: number;
  trace_parent: string | null;
  claimed_until: number;
}

/** A row the api's signal handed over, until its job is queued. */
interface HandOver extends HandedOverRow {
  dueAt: number;
}

/**
 * Moves inbox rows onto the notification queue, in the worker, NOTIFICATIONS_PER_JOB rows to a
 * verification job: rows the api has just stored, handed over by its signal on INBOX_CHANNEL
 * (their jobs are queued from the signal, the rows not written: a job's id names its first row
 * and when the rows come due, as a claim's does), and due rows: those no signal handed over (none
 * listening, the queue full), rows whose job was lost (their claim or handover lapsed) and
 * unmatched rows whose retry is due. Each batch of due rows is claimed with a lease (FOR UPDATE
 * SKIP LOCKED, so several workers split the work) and queued with one pipelined add; job ids are
 * fixed per rows and claim, so rows are one job per lease, and rows whose job was lost or failed
 * as stalled get a new one when their lease lapses. While the queue is unreachable the claims are
 * given back and the rows wait in Postgres. So does a backlog longer than the queue's depth
 * (NOTIFICATION_QUEUE_DEPTH jobs waiting): a burst costs Redis and the relay only what the
 * workers can take soon, and Redis holds a bounded number of jobs however many arrive.
 */
@Injectable()
@RequeuesLostJobs(QUEUES.notificationBatches, 'notifications')
export class InboxRelay implements BackgroundLoop, LostJobs {
  private readonly logger = new Logger(InboxRelay.name);
  private readonly loop: RelayLoop;
  private listener: Client | undefined;
  private relisten: NodeJS.Timeout | undefined;
  private gather: NodeJS.Timeout | undefined;
  private roomRetry: NodeJS.Timeout | undefined;
  /** The last batch was cut short by the queue's depth: due rows may be left. */
  private heldBack = false;
  private queueDown = false;
  private queueProblem = '';
  /** Rows the signal handed over whose jobs are not queued yet (the queue was full). */
  private handedOver: HandOver[] = [];
  /** When the relay last claimed due rows. */
  private claimedAt = 0;
  /**
   * The queue's waiting jobs as last counted plus the jobs queued since: at most that many wait
   * (the workers only take them away). Null when unknown.
   */
  private waitingAtMost: number | null = null;
  private countedAt = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: JobProducer,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.loop = new RelayLoop({
      intervalMs: Math.min(config.sweepIntervalMs, MAX_INTERVAL_MS),
      step: async () => {
        const relayed = await this.relayBatch();
        return relayed === BATCH ? 'more' : relayed < 0 ? 'halt' : 'done';
      },
      logger: this.logger,
      failing: (message) => `inbox relay: ${message}`,
      working: 'inbox relay: working again',
      afterPass: () => {
        if (!this.heldBack) return;
        this.roomRetry ??= setTimeout(() => {
          this.roomRetry = undefined;
          this.wake();
        }, ROOM_RETRY_MS);
      },
    });
  }

  private get stopped(): boolean {
    return this.loop.isStopped;
  }

  onApplicationBootstrap(): void {
    void this.listen();
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    const stopping = this.loop.stop();
    clearTimeout(this.relisten);
    clearTimeout(this.gather);
    clearTimeout(this.roomRetry);
    await this.listener?.end().catch(() => undefined);
    await stopping;
  }

  /**
   * Starts a pass, or asks the pass under way for one more round. While the queue is down only
   * the timer starts passes, so a stream of signals does not turn into a stream of failures.
   */
  wake(timed = false): void {
    if (this.queueDown && !timed) return;
    this.loop.wake();
  }

  /**
   * Relays one batch of due rows, no more than the queue has room for; the number queued, or -1
   * when the queue did not take them.
   */
  async relayBatch(): Promise<number> {
    const waiting = await this.waitingJobs();
    // Jobs the queue has room for. Unknown (the queue cannot be asked): try a full batch, whose
    // add fails the same way.
    const room = waiting === null ? BATCH : this.config.notificationQueueDepth - waiting;
    const full = Math.min(BATCH, room * NOTIFICATIONS_PER_JOB);
    if (full <= 0) {
      this.heldBack = true;
      return 0;
    }
    const handed = await this.handOver(full);
    if (handed < 0) return -1;
    // The claimed rows go in jobs of their own: the room the handed rows' jobs left.
    const limit = Math.min(
      full - handed,
      (room - Math.ceil(handed / NOTIFICATIONS_PER_JOB)) * NOTIFICATIONS_PER_JOB,
    );
    // A pass that handed rows over leaves due rows (unmatched retries, lapsed leases, rows no
    // signal handed over) to the timed passes, which claim each second, so a signal's pass costs
    // no statement; it claims itself only if no pass has for two seconds (signals all along).
    if (limit <= 0 || (handed > 0 && Date.now() - this.claimedAt < 2 * MAX_INTERVAL_MS)) {
      this.heldBack = full < BATCH && this.handedOver.length > 0;
      return handed;
    }
    this.claimedAt = Date.now();
    const markedAtClaim = waiting !== null;
    const claimed = await runPrepared<ClaimedRow>(this.dataSource, CLAIM, [
      limit,
      claimLeaseSeconds(this.config),
      markedAtClaim,
    ]);
    this.heldBack = full < BATCH && claimed.length === limit;
    if (claimed.length === 0) return handed;
    const queued = await this.queue(
      claimed.map((row) => ({
        notificationId: row.id,
        orderKey: row.order_tracking_id ?? row.id,
        attempt: row.attempts,
        claim: Math.round(row.claimed_until),
        // The relay's step in the notification's trace (tracing on); the job continues it.
        ...(row.trace_parent
          ? { traceParent: markInTrace(row.trace_parent, 'inbox relay') ?? undefined }
          : {}),
      })),
    );
    // Queued: marked so, unless the claim did (the lease stays, in case a job is lost). Not
    // queued: given back as received, so the next timed pass takes them at once.
    if (queued && markedAtClaim) return handed + claimed.length;
    await runPrepared(this.dataSource, queued ? MARK_QUEUED : GIVE_BACK, [
      claimed.map((row) => row.id),
    ]);
    return queued ? handed + claimed.length : -1;
  }

  /**
   * The queue's waiting jobs, or at most that many: counted (a call to the queue) only when a
   * pass could fill the depth by what is known, or a second after the last count. Null when the
   * queue cannot be asked.
   */
  private async waitingJobs(): Promise<number | null> {
    const known = this.waitingAtMost;
    if (
      known !== null &&
      Date.now() - this.countedAt < COUNT_EVERY_MS &&
      known + PASS_JOBS_MAX <= this.config.notificationQueueDepth
    ) {
      return known;
    }
    this.countedAt = Date.now();
    this.waitingAtMost = await this.jobs.waitingCount(QUEUES.notificationBatches);
    return this.waitingAtMost;
  }

  /**
   * Queues the jobs of up to `limit` handed-over rows, writing nothing: the number queued, or -1
   * when the queue did not take them (they come due and are claimed). A row about to come due is
   * left to the claim.
   */
  private async handOver(limit: number): Promise<number> {
    const soon = Date.now() + HANDOVER_MARGIN_MS;
    const rows = this.handedOver.filter((row) => row.dueAt > soon);
    const taken = rows.slice(0, limit);
    this.handedOver = rows.slice(limit);
    if (taken.length === 0) return 0;
    const queued = await this.queue(
      taken.map((row) => ({
        notificationId: row.id,
        orderKey: row.orderKey,
        attempt: 0,
        claim: row.dueAt,
        ...(row.traceParent
          ? { traceParent: markInTrace(row.traceParent, 'inbox relay') ?? undefined }
          : {}),
      })),
    );
    return queued ? taken.length : -1;
  }

  /**
   * One pipelined add of the rows, NOTIFICATIONS_PER_JOB to a job; false when the queue did not
   * take the jobs (logged once per problem).
   */
  private async queue(rows: VerifyNotificationData[]): Promise<boolean> {
    const batches = [];
    for (let start = 0; start < rows.length; start += NOTIFICATIONS_PER_JOB) {
      batches.push({ notifications: rows.slice(start, start + NOTIFICATIONS_PER_JOB) });
    }
    const queued = await this.jobs.addBulk('verify-notifications', batches).then(
      () => true,
      (error: Error) => {
        if (error.message !== this.queueProblem) {
          this.logger.warn(`notifications not queued: ${error.message}`);
        }
        this.queueProblem = error.message;
        return false;
      },
    );
    if (this.waitingAtMost !== null)
      this.waitingAtMost = queued ? this.waitingAtMost + batches.length : null;
    if (queued && this.queueProblem) this.logger.log('notification queue reachable again');
    if (queued) this.queueProblem = '';
    this.queueDown = !queued;
    return queued;
  }

  /**
   * The notifications queue's store came back empty: every claimed row none of its jobs holds
   * (those queued since are read from the queue, a page at a time) is due again now, and relayed
   * at once.
   */
  async requeueLost(): Promise<number> {
    const leased = await runPrepared<LeasedRow>(this.dataSource, LEASED, [
      claimLeaseSeconds(this.config),
    ]);
    if (leased.length === 0) return 0;
    const held = new Set(
      (await this.jobs.held('verify-notifications')).flatMap((batch) =>
        batch.notifications.map((notification) => notification.notificationId),
      ),
    );
    const lost = leased.filter((row) => !held.has(row.id));
    if (lost.length === 0) return 0;
    const requeued = await runPrepared(this.dataSource, REQUEUE_LOST, [
      lost.map((row) => row.id),
      lost.map((row) => row.attempts),
      lost.map((row) => row.lease_ends),
    ]);
    this.wake(true);
    return requeued.length;
  }

  /** A dedicated connection waits for the api's signal; if it drops, the timer covers meanwhile. */
  private async listen(): Promise<void> {
    if (this.stopped) return;
    // LISTEN needs a session of its own: never through a transaction-mode pooler.
    const client = new Client({ connectionString: this.config.databaseDirectUrl });
    this.listener = client;
    const retry = (error?: Error) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      if (error) this.logger.warn(`inbox relay stops listening for a moment: ${error.message}`);
      this.relisten = setTimeout(() => void this.listen(), RELISTEN_AFTER_MS);
    };
    client.on('notification', (message) => {
      const signal = decodeInboxSignal(message.payload);
      if (signal && this.handedOver.length < HANDOVER_KEPT_MAX) {
        for (const row of signal.rows.slice(0, HANDOVER_KEPT_MAX - this.handedOver.length)) {
          const { id, orderKey, traceParent } = row;
          this.handedOver.push({ id, orderKey, traceParent, dueAt: signal.dueAt });
        }
      }
      if (this.handedOver.length >= NOTIFICATIONS_PER_JOB && !this.heldBack) {
        // A full job's worth: no reason to wait for more.
        clearTimeout(this.gather);
        this.gather = undefined;
        this.wake();
        return;
      }
      this.gather ??= setTimeout(() => {
        this.gather = undefined;
        this.wake();
      }, RELAY_GATHER_MS);
    });
    client.on('error', retry);
    client.on('end', () => retry());
    try {
      await client.connect();
      await client.query(`LISTEN ${INBOX_CHANNEL}`);
    } catch (error) {
      retry(error as Error);
    }
  }
}
