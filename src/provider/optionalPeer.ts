import { InvalidOptionError } from '../errors';

/** The versions to install, per OpenTelemetry JS line, named in the error of a missing exporter. */
const EXPORTER_VERSIONS =
  '@0.301.0 beside @opentelemetry/sdk-metrics@3.1.0, or @0.223.0 beside 2.12.0';

/**
 * An optional peer dependency, loaded when it is asked for so that users who do not need it
 * need not install it (it must come from their own OpenTelemetry JS line, 2.x or 3.x).
 * @throws InvalidOptionError naming the package and what to install when it is missing
 */
export function loadOptionalPeer<T>(
  name: string,
  /** The option that asks for it: `prometheus`, `otlp.protocol`, `resource`. */
  option: string,
  neededFor: string,
  version = `${name}${EXPORTER_VERSIONS}`
): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when asked for
    return require(name) as T;
  } catch (error) {
    const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
    if (code !== 'MODULE_NOT_FOUND' || !String(message).includes(`'${name}'`))
      throw error;
    throw new InvalidOptionError(
      `${neededFor} needs ${name}, which is not installed; install the version of your OpenTelemetry JS line: ${version}`,
      { option, found: undefined, expected: `${name} installed (${version})` }
    );
  }
}
