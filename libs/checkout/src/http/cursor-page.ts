import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { INTEGER, NEXT_CURSOR } from './documented-schemas';
import { PAGE_LIMIT_MAX } from './page-query';

/** A page's `limit` as applied: 1 to PAGE_LIMIT_MAX, 50 unless asked (LimitQuery). */
export const PAGE_LIMIT = { ...INTEGER, minimum: 1, maximum: PAGE_LIMIT_MAX } as const;

/**
 * Documentation of a cursor page's answer (OpenAPI only): `items`, at most PAGE_LIMIT_MAX of
 * `item` (`sorted` says in which order), the `limit` applied and the `next_cursor`. An answer's
 * class extends it, and adds any field of its own after these:
 * `class AdminRefundPage extends CursorPage(AdminRefundResponse) implements RefundPage {}`.
 */
export function CursorPage<T>(item: Type<T>, sorted?: string) {
  class Page {
    @ApiProperty({ type: [item], maxItems: PAGE_LIMIT_MAX, description: sorted })
    items!: T[];

    @ApiProperty({ ...PAGE_LIMIT, example: 50 })
    limit!: number;

    @ApiProperty(NEXT_CURSOR)
    next_cursor!: string | null;
  }
  return Page;
}
