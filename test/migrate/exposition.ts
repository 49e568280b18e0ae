/**
 * The Prometheus text exposition (format 0.0.4) as the official exporter writes it: families by
 * their `# TYPE` lines, and their samples with labels: what tests read an exposition with, whole
 * (the tools read it streaming, with src/migrate/expositionIndex.ts).
 */

/** One sample line: `name{labels} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A metric family: its type and its samples (a histogram's `_count`, `_sum` and `_bucket` included). */
export interface Family {
  readonly name: string;
  readonly type: string;
  readonly samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;
const HISTOGRAM_SUFFIXES = ['_bucket', '_count', '_sum'];

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/**
 * Parses an exposition into its families, by name. Samples without a `# TYPE` line are their own
 * untyped family. Throws an Error naming the line that cannot be read.
 */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string, type: string): Family => {
    let found = families.get(name);
    if (found === undefined) {
      found = { name, type, samples: [] };
      families.set(name, found);
    }
    return found;
  };
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^#\s*TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (type !== null) family(type[1]!, type[2]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (match === null)
      throw new Error(`line ${index + 1}: cannot read ${JSON.stringify(line)}`);
    const [, name, labelText = '', value] = match;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    let consumed = 0;
    for (let m = LABEL.exec(labelText); m !== null; m = LABEL.exec(labelText)) {
      labels[m[1]!] = unescapeLabel(m[2]!);
      consumed = LABEL.lastIndex;
    }
    if (labelText.slice(consumed).trim() !== '')
      throw new Error(
        `line ${index + 1}: cannot read the labels of ${JSON.stringify(line)}`
      );
    const suffix = HISTOGRAM_SUFFIXES.find(s => name!.endsWith(s));
    const base = suffix === undefined ? name! : name!.slice(0, -suffix.length);
    const owner =
      suffix !== undefined && families.get(base)?.type === 'histogram'
        ? families.get(base)!
        : family(name!, families.get(name!)?.type ?? 'untyped');
    owner.samples.push({ name: name!, labels, value: parseValue(value!) });
  }
  return families;
}
