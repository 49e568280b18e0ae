import { parseArgs } from 'node:util';
import { UsageError } from './UsageError';

/** One option of a command: `--name VALUE` (string) or a flag (boolean). */
interface CommandOption {
  readonly type: 'string' | 'boolean';
  /** A one-letter alias, e.g. `h` for `-h`. */
  readonly short?: string;
  /** What the value is called in messages, e.g. `FILE`. Only for string options. */
  readonly valueName?: string;
  /** Whether it may be given more than once, each value kept. */
  readonly multiple?: boolean;
}

/** What a command takes: its options (`help`, `-h`, is always understood) and positionals. */
interface CommandLineSpec {
  readonly options: Readonly<Record<string, CommandOption>>;
  /** The positional a command takes at most once, e.g. `FILE`; none by default. */
  readonly positional?: {
    readonly name: string;
    /** When it is required: what follows the usage in the message saying it is missing. */
    readonly required?: string;
  };
  /**
   * A mistake parseArgs finds is said in parseArgs' words, with a pointer to `--help`, and comes
   * before `--help` (as `migrate` and `compare` always said them); otherwise in ours, listing
   * what the command takes, and `--help` wins over any mistake.
   */
  readonly parseArgsMessages?: boolean;
}

/** What a command line holds: the options given and the positional. */
export interface ParsedCommandLine {
  readonly values: Readonly<
    Record<string, string | boolean | string[] | undefined>
  >;
  readonly positional: string | undefined;
}

const HELP: CommandOption = { type: 'boolean', short: 'h' };

/** The options and positionals found, before the positionals are checked. */
interface FoundOnLine {
  readonly values: ParsedCommandLine['values'];
  readonly positionals: readonly string[];
}

/**
 * Reads `args` with `node:util`'s parseArgs and turns every mistake into a one-line
 * {@link UsageError} naming the command, what was found and what was expected.
 * @param command the command's name, which starts every message
 */
export function parseCommandLine(
  command: string,
  args: readonly string[],
  spec: CommandLineSpec
): ParsedCommandLine {
  // parseArgs ignores what it does not know of an option, such as valueName.
  const options = { ...spec.options, help: HELP };
  const { values, positionals } = spec.parseArgsMessages
    ? parseStrictly(command, args, options, spec)
    : parseLeniently(command, args, options, spec);
  if (values.help === true) return { values, positional: undefined };
  const { name, required } = spec.positional ?? {};
  const max = name === undefined ? 0 : 1;
  if (positionals.length > max)
    throw new UsageError(
      `${command}: unexpected argument ${JSON.stringify(positionals[max])}; ${name === undefined ? expectedOptions(spec) : `expected a single ${name}`}`
    );
  if (positionals.length === 0 && required !== undefined)
    throw new UsageError(
      `${command}: found no ${name}, expected 'legacy-metrics-api ${command} ${name}'${required}`
    );
  return { values, positional: positionals[0] };
}

/** parseArgs' own checks, its message made ours by a pointer to the command's help. */
function parseStrictly(
  command: string,
  args: readonly string[],
  options: CommandLineSpec['options'],
  spec: CommandLineSpec
): FoundOnLine {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options,
      strict: true,
      allowPositionals: spec.positional !== undefined,
    });
    return { values: values as ParsedCommandLine['values'], positionals };
  } catch (error) {
    throw new UsageError(
      `${command}: ${(error as Error).message.split('\n')[0]}; see 'legacy-metrics-api ${command} --help'`
    );
  }
}

/** `expected --config FILE, --workers N or --help`: what a command takes. */
function expectedOptions(spec: CommandLineSpec): string {
  const usages = Object.entries(spec.options).map(([name, option]) =>
    usageOf(name, option)
  );
  if (spec.positional !== undefined) usages.push(spec.positional.name);
  return `expected ${[...usages, '--help'].join(', ').replace(/, (--help)$/, ' or $1')}`;
}

/**
 * parseArgs run leniently and its tokens checked here, so that the messages are ours: an unknown
 * option, a missing or empty value, a value given to a flag and an option given twice.
 */
function parseLeniently(
  command: string,
  args: readonly string[],
  options: CommandLineSpec['options'],
  spec: CommandLineSpec
): FoundOnLine {
  const { tokens } = parseArgs({
    args: [...args],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  // Help wins over any other mistake on the line, as it always has.
  if (tokens.some(token => token.kind === 'option' && token.name === 'help'))
    return { values: { help: true }, positionals: [] };
  const values: Record<string, string | boolean | undefined> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const option = spec.options[token.name];
    if (option === undefined)
      throw new UsageError(
        `${command}: unknown option ${JSON.stringify(token.rawName)}; ${expectedOptions(spec)}`
      );
    const value = optionValue(command, token, option);
    if (values[token.name] !== undefined)
      throw new UsageError(
        `${command}: found --${token.name} a second time (${JSON.stringify(value)}), expected it once`
      );
    values[token.name] = value;
  }
  return { values, positionals };
}

/** What parseArgs' token says of one option. */
type OptionToken = Extract<
  NonNullable<ReturnType<typeof parseArgs>['tokens']>[number],
  { kind: 'option' }
>;

function optionValue(
  command: string,
  token: OptionToken,
  option: CommandOption
): string | true {
  if (option.type === 'boolean') {
    if (token.inlineValue === true)
      throw new UsageError(
        `${command}: found ${token.rawName}=${token.value ?? ''}, expected ${token.rawName} without a value`
      );
    return true;
  }
  const usage = usageOf(token.name, option);
  // parseArgs takes the next argument as the value even when it is another option.
  if (
    token.value === undefined ||
    (token.inlineValue === false &&
      token.value.startsWith('-') &&
      token.value !== '-')
  )
    throw new UsageError(
      `${command}: found ${token.rawName} without a value, expected ${usage}`
    );
  if (token.value === '')
    throw new UsageError(
      `${command}: found an empty ${token.rawName}, expected ${usage}`
    );
  return token.value;
}

function usageOf(name: string, option: CommandOption): string {
  return option.type === 'string'
    ? `--${name} ${option.valueName ?? 'VALUE'}`
    : `--${name}`;
}
