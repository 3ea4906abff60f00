import type { ComponentChildren, HTMLAttributes } from 'preact';
import { Answer, CursorList, Loading, Problem } from './answer';
import { ago, label } from './format';

/** One column of a DataTable: its heading and what each row shows in it. */
export interface Column<T> {
  head: ComponentChildren;
  cell: (row: T) => ComponentChildren;
  /** The cells' class: amount, reason, url, types, row-actions. */
  class?: string;
  /** A cell's tooltip (the full instant beside "5 min ago"). */
  tip?: (row: T) => string | undefined;
}

export interface TableProps<T> {
  /** The table's id, which the tests and links find it by. */
  id: string;
  /** The scrolling region's name for assistive technology. */
  label: string;
  /** Columns left out (false or null: an action the operator may not take) are skipped. */
  columns: (Column<T> | false | null)[];
  /** What the page says instead of an empty table. */
  empty: ComponentChildren;
  /** The empty sentence's id (default: `no-${id}`). */
  emptyId?: string;
  caption?: string;
  /** A row's key (default: its id), and the data- attributes tests and actions find it by. */
  rowKey?: (row: T) => string | number;
  rowData?: (row: T) => Record<string, string | number>;
}

/**
 * Every table of the console: a keyboard-scrollable region (narrow screens scroll it, not the
 * page), a heading per column, or the page's sentence when there is no row.
 */
export function DataTable<T>({
  id,
  label,
  columns,
  empty,
  emptyId = `no-${id}`,
  caption,
  rows,
  rowKey = (row) => (row as { id: string }).id,
  rowData,
}: TableProps<T> & { rows: T[] }) {
  if (rows.length === 0) {
    return (
      <p id={emptyId} class="empty">
        {empty}
      </p>
    );
  }
  const shown = columns.filter((column): column is Column<T> => Boolean(column));
  return (
    <div class="table" tabIndex={0} role="region" aria-label={label}>
      <table id={id}>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {shown.map((column) => (
              <th scope="col">{column.head}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} {...dataAttributes(rowData?.(row))}>
              {shown.map((column) => (
                <td class={column.class} title={column.tip?.(row)}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const dataAttributes = (data: Record<string, string | number> | undefined) =>
  Object.fromEntries(
    Object.entries(data ?? {}).map(([name, value]) => [`data-${name}`, value]),
  ) as HTMLAttributes<HTMLTableRowElement>;

/** An answer as the page shows it: loading, the problem, or what `children` makes of its data. */
export function Answered<T>({
  answer,
  what,
  children,
}: {
  answer: Answer<T>;
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  if (answer.state === 'loading') return <Loading what={what} />;
  if (answer.state === 'failed') return <Problem text={answer.problem} />;
  return <>{children(answer.data)}</>;
}

/** A cursor list (useCursorList) as a DataTable, with its "more" button and that page's problem. */
export function CursorTable<T>({
  list,
  what,
  more = `More ${what}`,
  moreId,
  ...table
}: TableProps<T> & {
  list: CursorList<T>;
  /** What is loading ("orders"); the more button's words (default: "More orders") and id. */
  what: string;
  more?: string;
  moreId?: string;
}) {
  return (
    <>
      <Answered answer={list.first} what={what}>
        {() => <DataTable {...table} rows={list.items} />}
      </Answered>
      {list.cursor && (
        <button
          type="button"
          id={moreId ?? `more-${table.id}`}
          onClick={() => void list.loadMore()}
        >
          {more}
        </button>
      )}
      {list.moreProblem && <Problem text={list.moreProblem} />}
    </>
  );
}

/** A link to an order's page, or a dash where there is none. */
export function OrderLink({ reference }: { reference: string | null | undefined }) {
  if (!reference) return <>—</>;
  return <a href={`#/orders/${encodeURIComponent(reference)}`}>{reference}</a>;
}

/** A status as a badge, written for people. */
export const Badge = ({ status }: { status: string }) => (
  <span class={`badge ${status}`}>{label(status)}</span>
);

/** When something happened, as "5 min ago" with the instant as the cell's tooltip. */
export const since = <T,>(head: string, at: (row: T) => string | null | undefined): Column<T> => ({
  head,
  cell: (row) => ago(at(row)),
  tip: (row) => at(row) ?? undefined,
});
