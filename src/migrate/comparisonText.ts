/**
 * The comparison as a person reads it: the tolerances, a table per host type (or host, or the
 * global metrics), each row saying why when it does not simply agree, and a summary.
 */
import type { ComparedGroup, ComparedKey, Comparison } from './compareServers';
import { listSome, textTable } from './textTable';

function groupTitle(group: ComparedGroup): string {
  return group.placement === 'global'
    ? 'global metrics'
    : `${group.placement === 'host' ? 'host' : 'host type'} ${JSON.stringify(group.group)}`;
}

function verdict(k: ComparedKey): string {
  const because = (text: string | undefined): string =>
    text === undefined ? '' : ` (${text})`;
  if (k.agree === true) return `agree${because(k.note)}`;
  if (k.agree === false) return `DISAGREE${because(k.why)}`;
  return `not compared${because(k.why)}`;
}

function prometheusCell(k: ComparedKey): string {
  if (k.range !== undefined) return `${k.range[0]}..${k.range[1]}`;
  return k.prometheus === undefined ? '-' : String(k.prometheus);
}

/** The comparison as text: the tolerances, then a table per group, then a summary. */
export function comparisonText(comparison: Comparison): string[] {
  const lines = [
    `legacy API ${comparison.legacy} and Prometheus ${comparison.prometheus}`,
    'tolerances:',
  ];
  for (const text of Object.values(comparison.tolerances))
    lines.push(`  ${text}`);
  const disagreeing: string[] = [];
  for (const group of comparison.groups) {
    lines.push('', `${groupTitle(group)}:`);
    const rows: string[][] = [['metric/key', 'legacy', 'prometheus', '']];
    for (const k of group.keys) {
      rows.push([
        `${k.metric}/${k.key}`,
        String(k.legacy),
        prometheusCell(k),
        verdict(k),
      ]);
      if (k.agree === false)
        disagreeing.push(`${group.group}: ${k.metric}/${k.key}`);
    }
    for (const line of textTable(rows, '  ')) lines.push(line);
  }
  lines.push(
    '',
    comparison.disagreements === 0
      ? 'all compared keys agree'
      : `${comparison.disagreements} key${comparison.disagreements === 1 ? '' : 's'} disagree: ${listSome(disagreeing)}`
  );
  return lines;
}
