/**
 * How an instrument and its attributes become a legacy metric name and a place (host type, host
 * or global). How the Prometheus exporter names the same instrument, and the PromQL that gives
 * each legacy key, are migrate's (src/migrate/prometheusNames.ts, legacyKeyQuery.ts).
 */
import type { Attributes } from '@opentelemetry/api';
import { HOST_ATTRIBUTE, HOST_TYPE_ATTRIBUTE } from '../attributes';

/** An attribute value as text: arrays joined with `,`, as the legacy name shows them. */
export function attributeText(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(',') : String(value);
}

/** The default legacy name: the instrument name, then each remaining attribute value (by key) after a `.`. */
export function defaultLegacyName(
  instrumentName: string,
  attributes: Attributes
): string {
  // Most sets hold only a host type or a host: those are named without an array of their keys.
  let named: string[] | undefined;
  for (const key in attributes) {
    if (key === HOST_TYPE_ATTRIBUTE || key === HOST_ATTRIBUTE) continue;
    if (!Object.hasOwn(attributes, key)) continue;
    const value = attributes[key];
    if (value === undefined || value === null) continue;
    (named ??= []).push(key);
  }
  if (named === undefined) return instrumentName;
  let name = instrumentName;
  for (const key of named.sort()) name += `.${attributeText(attributes[key])}`;
  return name;
}

/** The host type or host an attribute value places a series under; undefined for none (global). */
export function placementName(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = attributeText(value);
  return text === '' ? undefined : text;
}
