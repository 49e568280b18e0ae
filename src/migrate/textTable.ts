/**
 * Columns of text, padded to their widest cell, for tables of any length: widths are found with a
 * loop, never by spreading rows into a call (which overflows the stack past some 100,000 rows).
 */

/**
 * The rows as lines: every column but the last padded to its widest cell, two spaces apart, each
 * line after `indent` and without trailing spaces.
 */
export function textTable(
  rows: readonly (readonly string[])[],
  indent = ''
): string[] {
  const widths: number[] = [];
  for (const row of rows)
    for (let i = 0; i < row.length - 1; i++)
      widths[i] = Math.max(widths[i] ?? 0, row[i]!.length);
  const lines: string[] = [];
  for (const row of rows) {
    let line = indent;
    for (let i = 0; i < row.length; i++)
      line +=
        i === row.length - 1 ? row[i]! : `${row[i]!.padEnd(widths[i]!)}  `;
    lines.push(line.trimEnd());
  }
  return lines;
}

/** `a, b, c` for at most `most` items, then `and N more`. */
export function listSome(items: readonly string[], most = 20): string {
  const shown = items.slice(0, most).join(', ');
  return items.length <= most
    ? shown
    : `${shown} and ${items.length - most} more`;
}
