/**
 * What the term form's readers share: `{Name, Value}` option lists, the values of counts,
 * variants and handler lists, and the ConfigError at a term's line and column.
 */
import { VARIANTS, type Variant } from '../attributes';
import { ConfigError } from '../errors';
import { expectedOneOf } from '../nameSuggestion';
import { shorten } from '../optionValidation';
import { EXPECTED, isPositiveCount, TLS_NOT_SUPPORTED } from './listenerRules';
import {
  placeOf,
  type TermNode,
  type TermPosition,
  type TupleNode,
} from './termNodes';
import { printAtom, renderTerm } from './termPrinter';
import { CONFIG_DEFAULTS, KNOWN_HANDLERS } from './types';

/** Reads settings of one term file; every problem is a ConfigError at the term's position. */
export class TermSettingsReader {
  constructor(protected readonly _file: string) {}

  /**
   * Reads a list of `{Name, Value}` options, allowing only `known` names, each once.
   * @returns each option's tuple by name
   * @param what how one option is described when it is not a pair
   * @param within appended to an unknown option's name, e.g. ` in transport_options`
   * @param refuseSsl whether `{ssl, ...}` gets the TLS explanation instead of "unknown option"
   */
  protected _readOptions(
    options: TermNode[],
    known: readonly string[],
    what: string,
    within: string,
    refuseSsl = false
  ): Map<string, TupleNode> {
    const found = new Map<string, TupleNode>();
    for (const option of options) {
      if (
        option.kind !== 'tuple' ||
        option.elements.length !== 2 ||
        option.elements[0]!.kind !== 'atom'
      ) {
        this._fail(option, `for ${what}`, '{Name, Value}');
      }
      const name = (option.elements[0] as { value: string }).value;
      if (name === 'ssl' && refuseSsl)
        this._fail(option, '', `no TLS settings: ${TLS_NOT_SUPPORTED}`);
      if (!known.includes(name)) {
        this._failAt(
          option,
          `unknown option ${shorten(printAtom(name))}${within}`,
          expectedOneOf(name, known)
        );
      }
      this._addOnce(found, name, option);
    }
    return found;
  }

  /** Adds `option` to `found` as `name`, which it must not hold yet. */
  protected _addOnce(
    found: Map<string, TupleNode>,
    name: string,
    option: TupleNode
  ): void {
    const first = found.get(name);
    if (first !== undefined)
      this._failAt(
        option,
        `${name} a second time`,
        `each option once (first at ${placeOf(first)})`
      );
    found.set(name, option);
  }

  protected _count(
    node: TermNode | undefined,
    name: string,
    fallback: number,
    infinityAllowed: boolean
  ): number {
    if (node === undefined) return fallback;
    if (infinityAllowed && isAtom(node, 'infinity')) return Infinity;
    if (node.kind !== 'integer' || !isPositiveCount(node.value)) {
      this._fail(
        node,
        `for ${name}`,
        infinityAllowed
          ? `${EXPECTED.positiveInteger} or infinity`
          : EXPECTED.positiveInteger
      );
    }
    return Number(node.value);
  }

  protected _variant(node: TermNode | undefined): Variant {
    if (node === undefined) return CONFIG_DEFAULTS.variant;
    return this._atomOf(node, 'variant', VARIANTS);
  }

  protected _handlers(node: TermNode | undefined): string[] {
    if (node === undefined) return [...CONFIG_DEFAULTS.handlers];
    if (node.kind !== 'list' || node.elements.length === 0)
      this._fail(node, 'for handlers', 'a non-empty list of handler names');
    const handlers: string[] = [];
    for (const item of node.elements) {
      const handler = this._atomOf(item, 'a handler', KNOWN_HANDLERS);
      if (handlers.includes(handler))
        this._failAt(item, `${handler} a second time`, 'each handler once');
      handlers.push(handler);
    }
    return handlers;
  }

  /** The atom `node` when it is one of `allowed`; otherwise the error naming the one it looks like. */
  private _atomOf<T extends string>(
    node: TermNode,
    what: string,
    allowed: readonly T[]
  ): T {
    const found =
      node.kind === 'atom'
        ? allowed.find(name => name === node.value)
        : undefined;
    if (found === undefined)
      this._fail(node, `for ${what}`, expectedOneOf(nameOf(node), allowed));
    return found;
  }

  /** `found <term> <context>, expected <expected>` at the node. */
  protected _fail(node: TermNode, context: string, expected: string): never {
    return this._failAt(
      node,
      context === '' ? renderTerm(node) : `${renderTerm(node)} ${context}`,
      expected
    );
  }

  protected _failAt(at: TermPosition, found: string, expected: string): never {
    throw new ConfigError(
      this._file,
      placeOf(at),
      `found ${found}, expected ${expected}`
    );
  }
}

/** The value of a `{Name, Value}` option. */
export function valueOf(option: TupleNode | undefined): TermNode | undefined {
  return option?.elements[1];
}

/** Whether `node` is the atom `name`. */
export function isAtom(node: TermNode | undefined, name: string): boolean {
  return node?.kind === 'atom' && node.value === name;
}

/** The text of an atom or string, to look for a typo in; empty for other terms. */
function nameOf(node: TermNode): string {
  return node.kind === 'atom' || node.kind === 'string' ? node.value : '';
}
