import type { EntityManager } from 'typeorm';
import type { Announcement, JournalEntry, OrderJournal } from '@app/checkout/orders/order-journal';
import type { OrderEntity } from '@app/persistence';

/** One timeline event a fake journal was given, with its merchant event if any. */
export interface Journalled {
  entry: JournalEntry;
  announced: Announcement | null;
}

/**
 * An OrderJournal for unit tests that writes nothing: `record` keeps what it is given in
 * `journalled`, in order (and tells `onRecord`, e.g. to note where it came among other steps);
 * `flagForReview` does nothing. Pass `asJournal` where the service takes an OrderJournal.
 */
export function fakeJournal(onRecord?: (entry: JournalEntry) => void) {
  const journalled: Journalled[] = [];
  const journal = {
    record: jest.fn(
      async (
        _manager: EntityManager,
        _order: OrderEntity,
        entry: JournalEntry,
        announced: Announcement | null = null,
      ) => {
        onRecord?.(entry);
        journalled.push({ entry, announced });
      },
    ),
    flagForReview: jest.fn(async () => undefined),
  };
  return { journal, journalled, asJournal: journal as unknown as OrderJournal };
}
