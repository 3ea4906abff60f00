import { createHash } from 'node:crypto';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { isUuid } from '@app/domain';
import { CheckoutError } from '../errors/checkout-error';

/**
 * Keyset pagination: a page ends with a cursor naming its last row (its sort instant and id) and
 * the list and filters it belongs to; the next page starts strictly after that row, so rows that
 * arrive meanwhile neither repeat nor shift it, and reading page 1,000 costs what page 1 does.
 *
 * The cursor is opaque to clients but not secret: it carries only a position. Its checksum and
 * the list and filter fingerprint it carries turn a damaged, edited or foreign cursor into a 400
 * naming `cursor` instead of a silently wrong page.
 */
export interface PagePosition {
  /** The last row's sort instant (milliseconds; the row itself gives the exact value). */
  at: Date;
  id: string;
}

interface CursorBody {
  l: string;
  f: string;
  t: string;
  i: string;
}

const CHECKSUM_LENGTH = 12;

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** The filters a cursor was made under, in a stable form (undefined and empty ones left out). */
function fingerprint(filters: Record<string, unknown>): string {
  const entries = Object.entries(filters)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([key, value]) => [key, String(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return digest(JSON.stringify(entries)).slice(0, 16);
}

export function encodeCursor(
  list: string,
  filters: Record<string, unknown>,
  position: PagePosition,
): string {
  const body: CursorBody = {
    l: list,
    f: fingerprint(filters),
    t: position.at.toISOString(),
    i: position.id,
  };
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${payload}.${digest(`${list}:${payload}`).slice(0, CHECKSUM_LENGTH)}`;
}

function refuse(reason: string): never {
  throw CheckoutError.invalid([{ field: 'cursor', reason }]);
}

/** The position a cursor names, or a 400 naming `cursor` when it is not one of this list's. */
export function decodeCursor(
  list: string,
  filters: Record<string, unknown>,
  cursor: string,
): PagePosition {
  const match = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{12})$/.exec(cursor);
  if (!match) refuse('is not a cursor this API gave out');
  const [, payload, checksum] = match;
  if (digest(`${list}:${payload}`).slice(0, CHECKSUM_LENGTH) !== checksum) {
    refuse('was altered, or belongs to another list');
  }
  let body: Partial<CursorBody>;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<CursorBody>;
  } catch {
    refuse('is not a cursor this API gave out');
  }
  if (body.l !== list) refuse('belongs to another list');
  if (body.f !== fingerprint(filters)) {
    refuse('was given for other filters: repeat the first page with these filters');
  }
  const at = typeof body.t === 'string' ? new Date(body.t) : null;
  if (!at || Number.isNaN(at.getTime()) || typeof body.i !== 'string' || !isUuid(body.i)) {
    refuse('is not a cursor this API gave out');
  }
  return { at, id: body.i };
}

/**
 * The WHERE condition "after this position" for rows ordered by (`column`, id) in `direction`.
 * The row's own sort value is read back by primary key (exact to the microsecond, which a cursor's
 * milliseconds are not); the cursor's instant only stands in if that row is gone meanwhile.
 */
function afterPosition(
  alias: string,
  table: string,
  column: string,
  direction: 'DESC' | 'ASC',
): string {
  const comparison = direction === 'DESC' ? '<' : '>';
  return `(${alias}.${column}, ${alias}.id) ${comparison} (COALESCE((SELECT k.${column} FROM ${table} k WHERE k.id = :cursorId), :cursorAt), :cursorId)`;
}

/** Parameters for afterPosition's condition. */
function positionParameters(position: PagePosition): { cursorId: string; cursorAt: Date } {
  return { cursorId: position.id, cursorAt: position.at };
}

/**
 * A page of `limit` rows read as `limit + 1`: the extra row only says whether another page
 * follows, and the cursor names the page's last row.
 */
export function pageOf<T>(
  rows: T[],
  limit: number,
  position: (row: T) => PagePosition,
  list: string,
  filters: Record<string, unknown>,
): { rows: T[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const more = rows.length > limit && page.length > 0;
  return {
    rows: page,
    next_cursor: more ? encodeCursor(list, filters, position(page[page.length - 1])) : null,
  };
}

/** How a list is sorted: by (`column`, id) of the query's `alias` (`table`), newest first. */
export interface NewestFirst<T> {
  alias: string;
  table: string;
  column: string;
  /** The row's value of `column`, for its cursor. */
  at: (row: T) => Date;
}

/**
 * A newest-first keyset list, the shape of every admin list read from PostgreSQL. The cursor is
 * read at once, so a bad one is a 400 before anything is read; `page()` then reads `limit` rows
 * of the query (its filters applied) after the cursor's row.
 */
export function newestFirstList(
  list: string,
  filters: Record<string, unknown>,
  cursor: string | undefined,
) {
  const position = cursor ? decodeCursor(list, filters, cursor) : null;
  return {
    async page<T extends ObjectLiteral & { id: string }>(
      query: SelectQueryBuilder<T>,
      sort: NewestFirst<T>,
      limit: number,
    ): Promise<{ rows: T[]; next_cursor: string | null }> {
      query
        .orderBy(`${sort.alias}.${sort.column}`, 'DESC')
        .addOrderBy(`${sort.alias}.id`, 'DESC')
        .limit(limit + 1);
      if (position) {
        query.andWhere(
          afterPosition(sort.alias, sort.table, sort.column, 'DESC'),
          positionParameters(position),
        );
      }
      const rows = await query.getMany();
      return pageOf(rows, limit, (row) => ({ at: sort.at(row), id: row.id }), list, filters);
    },
  };
}
