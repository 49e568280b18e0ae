import type { DeprecationOptions } from '../config/deprecationOptions';
import { formatInstant } from '../config/instants';
import { resolveDeprecation } from '../config/resolveDeprecation';

/**
 * The lines `check-config` and `demo` print for a handler group's deprecation: when it was
 * announced, the sunset, the successor and the brownout schedule. None when the group has no
 * deprecation, so that output stays as it was for configurations without one.
 * @param indent what each line starts with
 * @param nameWidth the width of the setting names, so that values line up with the others
 * @param defaultSuccessor the successor served when the deprecation names none
 */
export function describeDeprecation(
  deprecation: DeprecationOptions | undefined,
  indent: string,
  nameWidth: number,
  defaultSuccessor?: string
): string[] {
  if (deprecation === undefined) return [];
  // Already validated when the file was loaded: this only normalizes it.
  const settings = resolveDeprecation(deprecation, 'camel', problem => {
    throw new Error(`deprecation.${problem.path}: ${problem.expected}`);
  });
  const line = (name: string, value: string): string =>
    `${indent}${name.padEnd(nameWidth)}${value}`;
  const sunset = settings.sunsetMs;
  const lines = [
    line(
      'deprecation',
      `since ${formatInstant(settings.sinceMs)} (header Deprecation: @${Math.floor(settings.sinceMs / 1000)})`
    ),
  ];
  if (sunset === undefined) {
    lines.push(line('sunset', 'none announced'));
  } else {
    const effects = [
      settings.enforceSunset
        ? 'every request answers 410 Gone from then on'
        : 'announced only: the API keeps answering',
    ];
    if (settings.inBand)
      effects.push('days left served in-band as legacyApiSunsetDays');
    lines.push(
      line('sunset', `${formatInstant(sunset)} (${effects.join('; ')})`)
    );
  }
  lines.push(
    line(
      'successor',
      settings.successor ??
        (defaultSuccessor === undefined
          ? 'none named (createMeterProviderWithLegacyApi and the demo name their Prometheus URL)'
          : `${defaultSuccessor} (the Prometheus endpoint)`)
    )
  );
  if (settings.documentation !== undefined)
    lines.push(line('documentation', settings.documentation));
  const windows = deprecation.brownouts ?? [];
  if (windows.length === 0) {
    lines.push(line('brownouts', 'none'));
  } else {
    settings.brownouts.forEach(({ startMs, endMs }, index) => {
      const duration = windows[index]!.duration;
      const text = `${formatInstant(startMs)} to ${formatInstant(endMs)} (${duration}, GET and HEAD answer 410 Gone)`;
      lines.push(line(index === 0 ? 'brownouts' : '', text));
    });
  }
  return lines;
}
