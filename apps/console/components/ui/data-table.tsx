import type { HTMLAttributes, ReactNode } from 'react';

/** One column: its header, and what each row shows in it. */
export interface Column<Row> {
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Figures: right-aligned header and cells. */
  num?: boolean;
  /** Class of the cells (e.g. `mono`, `break`). */
  className?: string;
}

/** Attributes of a row's `<tr>` (a selected row's class, a test id, `aria-current`). */
export type RowAttributes = HTMLAttributes<HTMLTableRowElement> & {
  [data: `data-${string}`]: string;
};

/**
 * Every table of the console: a caption (hidden unless `showCaption`: the page's heading says
 * it already), a header row, one row per item. Columns given as `false` are left out (those a
 * role may not use).
 */
export function DataTable<Row>(props: {
  caption: ReactNode;
  showCaption?: boolean;
  columns: Array<Column<Row> | false>;
  rows: readonly Row[];
  rowKey: (row: Row) => string | number;
  rowAttributes?: (row: Row) => RowAttributes;
  dense?: boolean;
}): ReactNode {
  const columns = props.columns.filter((c): c is Column<Row> => c !== false);
  const cellClass = (c: Column<Row>) =>
    [c.num ? 'num' : '', c.className ?? ''].filter(Boolean).join(' ') || undefined;
  return (
    <table className={props.dense ? 'table table--dense' : 'table'}>
      <caption className={props.showCaption ? undefined : 'visually-hidden'}>
        {props.caption}
      </caption>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col" className={c.num ? 'num' : undefined}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={props.rowKey(row)} {...props.rowAttributes?.(row)}>
            {columns.map((c, i) => (
              <td key={i} className={cellClass(c)}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
