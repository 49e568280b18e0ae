/*
 * How an instrument finds the binding of a data point's attribute set: by the attributes object
 * when the application keeps one per set, by the set's one string attribute (`{host_type: 'a'}`,
 * `{host: 'b'}`) otherwise, and by a key built from every attribute for the rest.
 */
import type { Attributes } from '@opentelemetry/api';
import type { Binding, InstrumentState } from './instruments';
import { attributeText } from './naming';

/** The key of the empty attribute set: {@link attributesKey} of no keys. */
const EMPTY_SET_KEY = '';

/** A set's identity as one flat string (a joined array, not a tree of concatenations that would stay in the heap). */
function attributesKey(
  keys: readonly string[],
  attributes: Attributes
): string {
  const parts: string[] = [];
  for (const k of keys)
    parts.push(k, '\u0000', attributeText(attributes[k]), '\u0001');
  return parts.join('');
}

/**
 * Where an attribute set's bindings are kept in an instrument: under `single` then `key` (the
 * attribute's key and string value) for a set of one such attribute, else under `key` alone.
 */
export interface SetKey {
  readonly single: string | undefined;
  readonly key: string;
}

export function setKeyOf(attributes: Attributes): SetKey {
  // A set of one string attribute, the most common, is keyed without an array of its keys.
  const sole = soleKey(attributes);
  if (sole !== undefined && sole !== SEVERAL) {
    const value = attributes[sole];
    if (typeof value === 'string') return { single: sole, key: value };
  }
  // The set's own keys, as `Object.keys` lists them and the SDK hashes them.
  const keys = Object.keys(attributes).sort();
  const value = keys.length === 1 ? attributes[keys[0]!] : undefined;
  return typeof value === 'string'
    ? { single: keys[0]!, key: value }
    : { single: undefined, key: attributesKey(keys, attributes) };
}

/** Marks a set that {@link soleKey} leaves to `Object.keys`. */
const SEVERAL: unique symbol = Symbol('several');

/**
 * The key of a set of one attribute, undefined for the empty set, {@link SEVERAL} for a set of
 * more, or for an object whose prototype lists keys too: its own keys are then `Object.keys`'s
 * to tell, and a prototype's many keys are not walked on every data point. `for…in` lists the
 * keys from the object's shape, where `Object.keys` would make an array.
 */
function soleKey(attributes: Attributes): string | undefined | typeof SEVERAL {
  let sole: string | undefined;
  for (const key in attributes) {
    if (sole !== undefined || !Object.hasOwn(attributes, key)) return SEVERAL;
    sole = key;
  }
  return sole;
}

/**
 * A number for each attribute (key and string value) that makes a set on its own, shared by all
 * instruments: the table stays in the processor's cache through a tick (a few thousand host
 * types), where each instrument's map would be read cold, and an instrument finds its binding
 * at that number in an array. The attributes objects the application keeps are remembered
 * here too, by object, once for all instruments.
 */
export class SingleAttributes {
  private readonly _byKey = new Map<string, Map<string, number>>();
  private readonly _byObject = new WeakMap<Attributes, number>();
  private _count = 0;

  numberOf(key: string, value: string): number | undefined {
    return this._byKey.get(key)?.get(value);
  }

  numberOrNew(key: string, value: string): number {
    // Spelled out rather than with getOrMake: no closure made for each new attribute set.
    let values = this._byKey.get(key);
    if (values === undefined) this._byKey.set(key, (values = new Map()));
    let number = values.get(value);
    if (number === undefined) values.set(value, (number = this._count++));
    return number;
  }

  /** The number of the set `attributes` was remembered with, if it was. */
  numberOfObject(attributes: Attributes): number | undefined {
    return this._byObject.get(attributes);
  }

  /** Remembers `attributes`, a set of one string attribute, with its number. */
  remember(attributes: Attributes, number: number): void {
    this._byObject.set(attributes, number);
  }
}

/** Marks an attribute set that {@link boundBySingle} cannot decide. */
const UNDECIDED: unique symbol = Symbol('undecided');

/**
 * The binding of a set of one attribute with a string value, or of the empty set, read without
 * allocating: undefined when not bound yet, {@link UNDECIDED} for any other set.
 */
function boundBySingle(
  instrument: InstrumentState,
  attributes: Attributes
): Binding | undefined | typeof UNDECIDED {
  const single = soleKey(attributes);
  if (single === SEVERAL) return UNDECIDED;
  if (single === undefined) return instrument.byKey.get(EMPTY_SET_KEY);
  const value = attributes[single];
  if (typeof value !== 'string') return UNDECIDED;
  const number = instrument.singles.numberOf(single, value);
  return number === undefined ? undefined : instrument.bySingle[number];
}

/**
 * The binding of an attribute set seen before, found without allocating: by object first (an
 * application that keeps its attributes objects hands the SDK the same one every time, and an
 * object made for one recording has no identity hash yet, so it misses at once), else by its one
 * string attribute. Undefined when neither knows it: the slow path's turn
 * ({@link InstrumentRegistry.binding}).
 */
export function knownBinding(
  instrument: InstrumentState,
  attributes: Attributes
): Binding | undefined {
  // One map for every instrument's sets of one attribute: a few thousand objects, read warm.
  const number = instrument.singles.numberOfObject(attributes);
  if (number !== undefined) return instrument.bySingle[number];
  const byObject = instrument.byIdentity?.get(attributes);
  if (byObject !== undefined) return byObject;
  const bound = boundBySingle(instrument, attributes);
  return bound !== UNDECIDED ? bound : undefined;
}
