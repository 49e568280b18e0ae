import { fork, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { argument, numberArgument } from './ipc';
import { isScaleName } from './workload';

/**
 * `npm run bench:reader-pairs [-- --scale L --ticks 240 --rounds 3 --inert-objects 600000 --legacy <readerCost.js>]`
 *
 * The legacy reader's CPU per tick by difference from the baseline reader's, as
 * `bench:reader` measures it, but with the two processes taking turns cycle by cycle (a
 * second of updates and a tick, `readerCost.ts --paced`): one runs a cycle while the other
 * waits, the first of each pair alternating. Run apart, two processes minutes apart meet a
 * machine whose speed drifts by as much as the difference measured (the same second of
 * updates takes 12 ms in one run and 20 in the next); in turns, the drift falls on both.
 *
 * A cycle's CPU is counted from the start of one turn to the start of the next, so the
 * collector's work that runs while a process waits (its tasks, its helper threads) counts in the
 * cycle that caused it. Reported per round and over all rounds: the mean per cycle of each
 * process, by its main thread and with the helper threads, the difference, and the difference of
 * the ticks' own means. `--legacy` runs another tree's built `readerCost.js` as the legacy side
 * (the baseline side is always this tree's), so that two trees can be set against one baseline.
 */

interface TickTime {
  cpuMs: number;
  threadCpuMs: number;
}

interface Turn {
  cpuAtTurn: TickTime;
  lastTick?: TickTime;
}

/** One forked readerCost process, run a cycle at a time. */
class PacedProcess {
  private readonly _child: ChildProcess;
  private _waiting: ((message: Record<string, unknown>) => void)[] = [];
  private readonly _messages: Record<string, unknown>[] = [];
  readonly turns: Turn[] = [];
  private _result: Record<string, unknown> | undefined = undefined;

  constructor(script: string, args: string[]) {
    this._child = fork(script, [...args, '--paced'], {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this._child.on('message', message => {
      const waiter = this._waiting.shift();
      if (waiter === undefined)
        this._messages.push(message as Record<string, unknown>);
      else waiter(message as Record<string, unknown>);
    });
    this._child.on('exit', code => {
      if (code !== 0)
        for (const waiter of this._waiting.splice(0))
          waiter({ event: 'exit', code });
    });
  }

  private _next(): Promise<Record<string, unknown>> {
    const message = this._messages.shift();
    if (message !== undefined) return Promise.resolve(message);
    return new Promise(settle => this._waiting.push(settle));
  }

  /** Waits until the process is ready for a turn. */
  async ready(): Promise<void> {
    const message = await this._next();
    if (message.event !== 'ready')
      throw new Error(`expected a turn, got ${JSON.stringify(message)}`);
  }

  /**
   * Gives the process its turn: it reports its CPU so far and runs a cycle. Resolves once the
   * cycle is over (it is ready for the next turn), or, after the last, once it has its result.
   */
  async turn(): Promise<void> {
    this._child.send('turn');
    const message = await this._next();
    if (message.event !== 'turn')
      throw new Error(`expected a turn, got ${JSON.stringify(message)}`);
    this.turns.push(message as unknown as Turn);
    const after = await this._next();
    if (after.event === 'result') this._result = after;
    else if (after.event !== 'ready')
      throw new Error(
        `expected the end of a cycle, got ${JSON.stringify(after)}`
      );
  }

  /** Its result, once the last turn is over. */
  get result(): Record<string, unknown> {
    if (this._result === undefined) throw new Error('no result yet');
    return this._result;
  }

  /** Per cycle: the CPU from one turn to the next, the process's and its main thread's. */
  cycles(): TickTime[] {
    const result: TickTime[] = [];
    for (let i = 1; i < this.turns.length; i++) {
      const before = this.turns[i - 1]!.cpuAtTurn;
      const after = this.turns[i]!.cpuAtTurn;
      result.push({
        cpuMs: after.cpuMs - before.cpuMs,
        threadCpuMs: after.threadCpuMs - before.threadCpuMs,
      });
    }
    return result;
  }

  ticks(): TickTime[] {
    return this.turns.flatMap(turn => (turn.lastTick ? [turn.lastTick] : []));
  }
}

const mean = (values: readonly number[]): number =>
  values.reduce((a, b) => a + b, 0) / values.length;

interface RoundFigures {
  legacyCycle: TickTime;
  baselineCycle: TickTime;
  legacyTick: TickTime;
  baselineTick: TickTime;
  slicesMs: number;
}

async function round(
  scale: string,
  ticks: number,
  inertObjects: string,
  legacyScript: string,
  baselineScript: string
): Promise<RoundFigures> {
  const common = ['--scale', scale, '--ticks', String(ticks)];
  const legacy = new PacedProcess(legacyScript, [
    ...common,
    '--reader',
    'legacy',
  ]);
  const baseline = new PacedProcess(baselineScript, [
    ...common,
    '--reader',
    'baseline',
    '--inert-objects',
    inertObjects,
  ]);
  await Promise.all([legacy.ready(), baseline.ready()]);
  // One turn more than the ticks: the first starts the first cycle, each later one ends one.
  for (let i = 0; i <= ticks; i++) {
    const [first, second] =
      i % 2 === 0 ? [legacy, baseline] : [baseline, legacy];
    await first.turn();
    await second.turn();
  }
  const legacyResult = legacy.result;
  const meanOf = (values: TickTime[]): TickTime => ({
    cpuMs: mean(values.map(value => value.cpuMs)),
    threadCpuMs: mean(values.map(value => value.threadCpuMs)),
  });
  const slices = legacyResult.slicesMs as { mean: number } | undefined;
  return {
    legacyCycle: meanOf(legacy.cycles()),
    baselineCycle: meanOf(baseline.cycles()),
    legacyTick: meanOf(legacy.ticks()),
    baselineTick: meanOf(baseline.ticks()),
    slicesMs: slices?.mean ?? NaN,
  };
}

const fixed = (value: number): string => value.toFixed(1);

function row(label: string, figures: RoundFigures): string {
  const { legacyCycle, baselineCycle, legacyTick, baselineTick } = figures;
  return [
    label,
    `${fixed(legacyCycle.threadCpuMs)} / ${fixed(baselineCycle.threadCpuMs)}`,
    `**${fixed(legacyCycle.threadCpuMs - baselineCycle.threadCpuMs)}**`,
    `${fixed(legacyCycle.cpuMs)} / ${fixed(baselineCycle.cpuMs)}`,
    `${fixed(legacyCycle.cpuMs - baselineCycle.cpuMs)}`,
    `${fixed(legacyTick.cpuMs)} / ${fixed(baselineTick.cpuMs)}`,
    `${fixed(legacyTick.cpuMs - baselineTick.cpuMs)}`,
    figures.slicesMs.toFixed(2),
  ].join(' | ');
}

async function main(): Promise<void> {
  const scale = argument('scale') ?? 'L';
  if (!isScaleName(scale))
    throw new Error(`--scale: found ${scale}, expected S, M, L or XL`);
  const ticks = numberArgument('ticks', 240);
  const rounds = numberArgument('rounds', 3);
  const inertObjects = String(numberArgument('inert-objects', 600000));
  const own = join(__dirname, 'readerCost.js');
  const legacyScript = resolve(argument('legacy') ?? own);
  console.log(
    `${legacyScript} against ${own}'s baseline (--inert-objects ${inertObjects}), scale ${scale}, ${rounds} rounds of ${ticks} cycles in turns\n`
  );
  console.log(
    '| round | cycle, main thread: legacy / baseline ms | difference | cycle with helper threads | difference | tick, process CPU, mean | difference | legacy slices ms |'
  );
  console.log('|---|--:|--:|--:|--:|--:|--:|--:|');
  const all: RoundFigures[] = [];
  for (let i = 1; i <= rounds; i++) {
    const figures = await round(scale, ticks, inertObjects, legacyScript, own);
    all.push(figures);
    console.log(`| ${row(String(i), figures)} |`);
  }
  const meanTick = (pick: (figures: RoundFigures) => TickTime): TickTime => ({
    cpuMs: mean(all.map(figures => pick(figures).cpuMs)),
    threadCpuMs: mean(all.map(figures => pick(figures).threadCpuMs)),
  });
  console.log(
    `| ${row('all', {
      legacyCycle: meanTick(figures => figures.legacyCycle),
      baselineCycle: meanTick(figures => figures.baselineCycle),
      legacyTick: meanTick(figures => figures.legacyTick),
      baselineTick: meanTick(figures => figures.baselineTick),
      slicesMs: mean(all.map(figures => figures.slicesMs)),
    })} |`
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
