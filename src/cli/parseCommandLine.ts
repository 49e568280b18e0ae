import { parseArgs } from 'node:util';
import { UsageError } from './UsageError';

/** One option of a command: `--name VALUE` (string) or a flag (boolean). */
export interface CommandOption {
  readonly type: 'string' | 'boolean';
  /** A one-letter alias, e.g. `h` for `-h`. */
  readonly short?: string;
  /** What the value is called in messages, e.g. `FILE`. Only for string options. */
  readonly valueName?: string;
}

/** What a command line holds: the options given (each at most once) and the positionals. */
export interface ParsedCommandLine {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * Reads `args` with `node:util`'s parseArgs and turns every mistake into a one-line
 * {@link UsageError} naming the command, what was found and what was expected. parseArgs is run
 * leniently and its tokens checked here, so the messages are ours rather than Node's.
 * @param command the command's name, which starts every message
 * @param options the command's options; `help` (`-h`) is always understood
 * @param positionals how many positionals the command takes, and how to say so when there are more
 */
export function parseCommandLine(
  command: string,
  args: readonly string[],
  options: Readonly<Record<string, CommandOption>>,
  positionals: {
    readonly max: number;
    /** The positional's name in messages, e.g. `FILE`. */
    readonly name?: string;
    /** What to say when there are too many. */
    readonly expected?: string;
  } = { max: 0 }
): ParsedCommandLine {
  const all: Record<string, CommandOption> = {
    ...options,
    help: { type: 'boolean', short: 'h' },
  };
  const { tokens } = parseArgs({
    args: [...args],
    options: Object.fromEntries(
      Object.entries(all).map(([name, option]) => [
        name,
        option.short === undefined
          ? { type: option.type }
          : { type: option.type, short: option.short },
      ])
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  // Help wins over any other mistake on the line, as it always has.
  if (tokens.some(token => token.kind === 'option' && token.name === 'help'))
    return { values: { help: true }, positionals: [] };
  const values: Record<string, string | boolean | undefined> = {};
  const found: string[] = [];
  const expected = (): string => {
    const usages = Object.entries(options).map(([name, option]) =>
      usageOf(name, option)
    );
    if (positionals.name !== undefined) usages.push(positionals.name);
    return `expected ${[...usages, '--help'].join(', ').replace(/, (--help)$/, ' or $1')}`;
  };
  for (const token of tokens) {
    if (token.kind === 'positional') {
      found.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const option = all[token.name];
    if (option === undefined) {
      throw new UsageError(
        `${command}: unknown option ${JSON.stringify(token.rawName)}; ${expected()}`
      );
    }
    let value: string | boolean;
    if (option.type === 'boolean') {
      if (token.inlineValue === true)
        throw new UsageError(
          `${command}: found ${token.rawName}=${token.value ?? ''}, expected ${token.rawName} without a value`
        );
      value = true;
    } else {
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
      value = token.value;
    }
    if (values[token.name] !== undefined)
      throw new UsageError(
        `${command}: found --${token.name} a second time (${JSON.stringify(value)}), expected it once`
      );
    values[token.name] = value;
  }
  if (found.length > positionals.max) {
    throw new UsageError(
      `${command}: unexpected argument ${JSON.stringify(found[positionals.max])}; ${
        positionals.expected ?? expected()
      }`
    );
  }
  return { values, positionals: found };
}

function usageOf(name: string, option: CommandOption): string {
  return option.type === 'string'
    ? `--${name} ${option.valueName ?? 'VALUE'}`
    : `--${name}`;
}
