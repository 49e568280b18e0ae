/**
 * The reference parts of docs/MIGRATION.md, generated from the naming rules so that the guide
 * cannot drift from them: migrationGuide.test.ts regenerates them and checks that the file
 * matches. Documentation tooling, not part of the package.
 */
import type { Attributes } from '@opentelemetry/api';
import type { MetricKind } from '../../src/snapshot/legacyValues';
import {
  agreementOf,
  LEGACY_KEYS,
  legacyKeyQuery,
  type LegacyPlacement,
} from '../../src/migrate/legacyKeyQuery';
import { defaultLegacyName } from '../../src/reader/naming';
import {
  PROMETHEUS_TYPES,
  prometheusSeries,
} from '../../src/migrate/prometheusNames';
import { recordingRuleName } from '../../src/migrate/ruleNames';

interface Example {
  readonly instrument: string;
  readonly name: string;
  readonly kind: MetricKind;
  readonly unit?: string;
  readonly attributes?: Attributes;
}

/** Instruments of the demo (src/demo), and one with a unit, as the guide's examples. */
const EXAMPLES: readonly Example[] = [
  { instrument: 'Counter', name: 'xmppMessageSent', kind: 'spiral' },
  { instrument: 'Counter', name: 'xmppErrorTotal', kind: 'spiral' },
  {
    instrument: 'Counter',
    name: 'data.xmpp.sent.bytes',
    kind: 'spiral',
    unit: 'By',
  },
  { instrument: 'UpDownCounter', name: 'sessionCount', kind: 'counter' },
  {
    instrument: 'ObservableGauge',
    name: 'nodeUpTime',
    kind: 'gauge',
    unit: 's',
  },
  {
    instrument: 'Histogram',
    name: 'backends.auth',
    kind: 'histogram',
    unit: 'us',
    attributes: { operation: 'authorize' },
  },
  {
    instrument: 'Histogram',
    name: 'data.xmpp.sent.xml_stanza_size',
    kind: 'histogram',
    unit: 'By',
  },
];

const LEGACY_TYPES: Readonly<Record<MetricKind, string>> = {
  spiral: 'spiral',
  counter: 'counter',
  gauge: 'gauge',
  histogram: 'histogram',
};

const code = (text: string): string => `\`${text}\``;

function seriesNames(example: Example): string {
  const series = prometheusSeries(
    example.name,
    example.kind,
    example.attributes
  );
  const labels = Object.entries(series.labels).map(
    ([k, v]) => `${k}=${JSON.stringify(v)}`
  );
  const selector = labels.length === 0 ? '' : `{${labels.join(',')}}`;
  if (series.type === 'histogram')
    return `${code(`${series.family}_count${selector}`)}, ${code('_sum')}, ${code('_bucket{le}')}`;
  return code(`${series.family}${selector}`);
}

/** The table of instruments, their legacy names and their Prometheus series. */
export function seriesTable(): string {
  const rows = EXAMPLES.map(example => {
    const attributes = Object.entries(example.attributes ?? {})
      .map(([k, v]) => code(`${k}="${String(v)}"`))
      .join(', ');
    const instrument = [
      `${example.instrument} ${code(example.name)}`,
      example.unit === undefined ? '' : `, unit ${code(example.unit)}`,
      attributes === '' ? '' : `, attribute ${attributes}`,
    ].join('');
    const legacy = `${LEGACY_TYPES[example.kind]} ${code(defaultLegacyName(example.name, example.attributes ?? {}))}`;
    return `| ${instrument} | ${legacy} | ${seriesNames(example)} | ${PROMETHEUS_TYPES[example.kind]} |`;
  });
  return [
    '| Instrument | Legacy metric | Prometheus series | Prometheus type |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const AGREEMENT_TEXT = {
  exact: 'Exactly.',
  window:
    'The difference over the 60 s window: exact while the series is younger than the window, otherwise within what was counted during one scrape interval and one slot at each end of it.',
  bucket:
    "An estimate from the exposition's explicit buckets, which may differ from the legacy estimate by up to a bucket (see Histograms).",
  none: 'No Prometheus series gives it.',
} as const;

/** The table of legacy keys, their recording rules and how closely they agree. */
export function keyTable(): string {
  const keys = [
    ...LEGACY_KEYS.spiral,
    'value',
    'ms_since_reset',
    ...LEGACY_KEYS.histogram,
  ];
  const rows = [...new Set(keys)].map(key => {
    const example =
      key === 'count' || key === 'one'
        ? 'xmppMessageSent'
        : key === 'value' || key === 'ms_since_reset'
          ? 'sessionCount'
          : 'backends.auth.authorize';
    const agreement = agreementOf(key);
    const rule =
      agreement === 'none' ? 'none' : code(recordingRuleName(example, key));
    const text =
      key === 'mean'
        ? "The window's `_sum` difference over its `_count` difference, as close as `n`; an integer histogram's legacy mean is truncated."
        : AGREEMENT_TEXT[agreement];
    return `| ${code(`metrics/${example}/${key}`)} | ${rule} | ${text} |`;
  });
  return [
    '| Legacy key | Recording rule from `migrate` | Same number? |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}

interface Query {
  readonly path: string;
  readonly metric: string;
  readonly key: string;
  readonly instrument: string;
  readonly kind: MetricKind;
  readonly attributes?: Attributes;
  readonly placement: LegacyPlacement;
}

/** The legacy keys the guide shows PromQL for, on the demo. */
const QUERIES: readonly Query[] = [
  ...(['count', 'one'] as const).map(key => ({
    path: '/metrics/host_type/localhost',
    metric: 'xmppMessageSent',
    key,
    instrument: 'xmppMessageSent',
    kind: 'spiral' as const,
    placement: { label: 'host_type' as const, values: ['localhost'] },
  })),
  {
    path: '/metrics/host_type/test%20type',
    metric: 'sessionCount',
    key: 'value',
    instrument: 'sessionCount',
    kind: 'counter',
    placement: { label: 'host_type', values: ['test type'] },
  },
  ...['n', 'mean', 'median', '95'].map(key => ({
    path: '/metrics/host_type/localhost',
    metric: 'backends.auth.authorize',
    key,
    instrument: 'backends.auth',
    kind: 'histogram' as const,
    attributes: { operation: 'authorize' },
    placement: { label: 'host_type' as const, values: ['localhost'] },
  })),
  {
    path: '/metrics/global',
    metric: 'nodeSessionCount',
    key: 'value',
    instrument: 'nodeSessionCount',
    kind: 'gauge',
    placement: { label: 'global' },
  },
];

/**
 * The PromQL of each example key, each after a `# legacy PATH METRIC KEY` comment that says which
 * legacy value it gives (the tests evaluate every one against the demo).
 */
export function keyQueries(): string {
  const lines = QUERIES.flatMap(q => [
    `# legacy ${q.path} ${q.metric} ${q.key}`,
    legacyKeyQuery(
      prometheusSeries(q.instrument, q.kind, q.attributes),
      q.key,
      q.placement
    )!,
  ]);
  return ['```promql', ...lines, '```'].join('\n');
}

/** The generated sections of docs/MIGRATION.md, by the name of their markers. */
export function migrationGuideSections(): Record<string, string> {
  return {
    'series-names': seriesTable(),
    'legacy-keys': keyTable(),
    'key-queries': keyQueries(),
  };
}

const SECTION =
  /(<!-- generated: ([a-z-]+) -->\n)[\s\S]*?(<!-- end generated -->)/g;

/** The guide with every generated section replaced by what the naming rules give now. */
export function regenerateMigrationGuide(text: string): string {
  const sections = migrationGuideSections();
  return text.replace(
    SECTION,
    (whole, start: string, name: string, end: string) =>
      name in sections ? `${start}${sections[name]}\n${end}` : whole
  );
}
