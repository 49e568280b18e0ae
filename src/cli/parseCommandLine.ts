import { parseArgs } from 'node:util';
import { UsageError } from './UsageError';

/** One option of a command: `--name VALUE` (string) or a flag (boolean). */
export interface CommandOption {
  readonly type: 'string' | 'boolean';
  /** A one-letter alias, e.g. `h` for `-h`. */
  readonly short?: string;
  /** What the value is called in messages, e.g. `FILE`. Only for string options. */
  readonly valueName?: string;
  /** Whether it may be given more than once, each value kept. */
  readonly multiple?: boolean;
}

/** What a command takes: its options (`help`, `-h`, is always understood) and positionals. */
export interface CommandLineSpec {
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
  const line = spec.parseArgsMessages
    ? parseStrictly(command, args, options, spec)
    : parseLeniently(command, args, options, spec);
  if (line.values.help === true) return line;
  const { name, required } = spec.positional ?? {};
  if (line.positional === undefined && required !== undefined)
    throw new UsageError(
      `${command}: found no ${name}, expected 'legacy-metrics-api ${command} ${name}'${required}`
    );
  return line;
}

type ParseArgsOptions = Readonly<Record<string, CommandOption>>;

/** parseArgs' own checks, its message made ours by a pointer to the command's help. */
function parseStrictly(
  command: string,
  args: readonly string[],
  options: ParseArgsOptions,
  spec: CommandLineSpec
): ParsedCommandLine {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options,
      strict: true,
      allowPositionals: spec.positional !== undefined,
    });
  } catch (error) {
    throw new UsageError(
      `${command}: ${(error as Error).message.split('\n')[0]}; see 'legacy-metrics-api ${command} --help'`
    );
  }
  const values = parsed.values as ParsedCommandLine['values'];
  if (values.help === true) return { values, positional: undefined };
  return {
    values,
    positional: singlePositional(command, parsed.positionals, spec),
  };
}

function singlePositional(
  command: string,
  found: readonly string[],
  spec: CommandLineSpec,
  expected = `expected a single ${spec.positional?.name}`
): string | undefined {
  const max = spec.positional === undefined ? 0 : 1;
  if (found.length > max)
    throw new UsageError(
      `${command}: unexpected argument ${JSON.stringify(found[max])}; ${expected}`
    );
  return found[0];
}

/**
 * parseArgs run leniently and its tokens checked here, so that the messages are ours: an unknown
 * option, a missing or empty value, a value given to a flag and an option given twice.
 */
function parseLeniently(
  command: string,
  args: readonly string[],
  options: ParseArgsOptions,
  spec: CommandLineSpec
): ParsedCommandLine {
  const { tokens } = parseArgs({
    args: [...args],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  // Help wins over any other mistake on the line, as it always has.
  if (tokens.some(token => token.kind === 'option' && token.name === 'help'))
    return { values: { help: true }, positional: undefined };
  const usages = Object.entries(spec.options).map(([name, option]) =>
    usageOf(name, option)
  );
  if (spec.positional !== undefined) usages.push(spec.positional.name);
  const expected = `expected ${[...usages, '--help'].join(', ').replace(/, (--help)$/, ' or $1')}`;
  const values: Record<string, string | boolean | undefined> = {};
  const found: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') found.push(token.value);
    if (token.kind !== 'option') continue;
    const option = spec.options[token.name];
    if (option === undefined)
      throw new UsageError(
        `${command}: unknown option ${JSON.stringify(token.rawName)}; ${expected}`
      );
    const value = optionValue(command, token, option);
    if (values[token.name] !== undefined)
      throw new UsageError(
        `${command}: found --${token.name} a second time (${JSON.stringify(value)}), expected it once`
      );
    values[token.name] = value;
  }
  return {
    values,
    positional: singlePositional(
      command,
      found,
      spec,
      spec.positional === undefined ? expected : undefined
    ),
  };
}

/** What parseArgs' token says of one option. */
interface OptionToken {
  readonly name: string;
  readonly rawName: string;
  readonly value?: string | undefined;
  readonly inlineValue?: boolean | undefined;
}

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
