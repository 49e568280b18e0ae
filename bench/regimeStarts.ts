import { cpus } from 'node:os';
import { measureHostFeel, v8FlagValue } from './hostFeelRun';
import { checkWrk } from './wrk';
import { isScaleName, SCALES } from './workload';

/**
 * `npm run bench:regime [-- --scale L --runs 6 --seconds 8 --reader legacy|baseline
 * --startup-objects N --v8-flag --FLAG]` (needs wrk).
 *
 * How often the host-feel process (`hostFeel.ts`) starts in the collector's costly regime: each
 * run starts a fresh process under wrk load, warms it up 3 s (its first ticks included) and
 * reads its collector over `--seconds`. A run is in the regime when its minor collections take
 * more than 5 ms on average (1–2 ms otherwise, about 17 in it). `--startup-objects` has the host
 * build that many long-lived records of its own once it listens, in 2 ms slices; `--v8-flag`
 * (repeatable) passes a V8 option to the process.
 */

const REGIME_SCAVENGE_MS = 5;

function parse(argv: readonly string[]): {
  scale: string;
  runs: number;
  seconds: number;
  reader: 'legacy' | 'baseline';
  startupObjects: number | undefined;
  v8Flags: string[];
} {
  const options = {
    scale: 'L',
    runs: 6,
    seconds: 8,
    reader: 'legacy' as 'legacy' | 'baseline',
    startupObjects: undefined as number | undefined,
    v8Flags: [] as string[],
  };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!;
    const value = argv[i + 1] ?? '';
    const count = (): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n <= 0)
        throw new Error(`${name} needs a positive integer (got ${value})`);
      return n;
    };
    switch (name) {
      case '--scale':
        if (!isScaleName(value.toUpperCase()))
          throw new Error(`--scale: unknown scale ${value} (S, M, L, XL)`);
        options.scale = value.toUpperCase();
        break;
      case '--runs':
        options.runs = count();
        break;
      case '--seconds':
        options.seconds = count();
        break;
      case '--reader':
        if (value !== 'legacy' && value !== 'baseline')
          throw new Error(`--reader: legacy or baseline (got ${value})`);
        options.reader = value;
        break;
      case '--startup-objects':
        options.startupObjects = count();
        break;
      case '--v8-flag':
        options.v8Flags.push(v8FlagValue(value));
        break;
      default:
        throw new Error(
          `unknown argument ${name} (use --scale S|M|L|XL, --runs N, --seconds N, --reader legacy|baseline, --startup-objects N, --v8-flag --FLAG)`
        );
    }
  }
  return options;
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const missing = checkWrk();
  if (missing !== undefined) throw new Error(missing);
  const scale = SCALES[options.scale as keyof typeof SCALES];
  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}; scale ${scale.name}, ` +
      `${options.reader} reader${options.startupObjects === undefined ? '' : `, ${options.startupObjects} startup records`}` +
      `${options.v8Flags.length === 0 ? '' : `, ${options.v8Flags.join(' ')}`}; ${options.runs} runs of ${options.seconds} s\n`
  );
  console.log(
    '| run | process CPU ms/s | static route req/s | scavenge mean ms | major collections | in the regime |'
  );
  console.log('|--:|--:|--:|--:|--:|---|');
  let inRegime = 0;
  for (let run = 1; run <= options.runs; run++) {
    const [row] = await measureHostFeel(scale, {
      seconds: options.seconds,
      warmupSeconds: 3,
      connections: 10,
      sliceMs: undefined,
      hostV8Flags: options.v8Flags,
      readers: [options.reader],
      startupObjects: options.startupObjects,
    });
    const regime = row!.scavengeMeanMs > REGIME_SCAVENGE_MS;
    if (regime) inRegime++;
    console.log(
      `| ${run} | ${Math.round(row!.cpuMsPerSecond)} | ${Math.round(row!.staticRoute.requestsPerSecond)} | ` +
        `${row!.scavengeMeanMs.toFixed(1)} | ${row!.majorCollections} | ${regime ? 'yes' : 'no'} |`
    );
  }
  console.log(`\nIn the regime: ${inRegime} of ${options.runs}`);
}

main().catch((error: unknown) => {
  console.error(
    `npm run bench:regime: ${error instanceof Error ? error.message : String(error)}`
  );
  process.exit(1);
});
