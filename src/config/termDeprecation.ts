/** The term adapter of the deprecation settings: a handler group's `{deprecation, [...]}` option. */
import { ConfigError } from '../errors';
import { shorten } from '../optionValidation';
import type { DeprecationOptions } from './deprecationOptions';
import { deprecationFromFile } from './resolveDeprecation';
import { placeOf, type TermNode } from './termNodes';
import { renderTerm } from './termPrinter';

/**
 * Reads the value of a term-form `{deprecation, [...]}` handler option: a proplist of
 * `{since, "2026-01-01"}`, `{sunset, "…"}`, `{successor, "http://…"}`, `{documentation, "…"}`,
 * `{in_band, true}`, `{enforce_sunset, true}` and `{brownouts, [[{start, "…"}, {duration, "PT1H"}], …]}`.
 * Strings may also be binaries (`<<"…">>`).
 * @throws ConfigError at the line and column of the first invalid setting
 */
export function readTermDeprecation(
  node: TermNode,
  file: string
): DeprecationOptions {
  const nodes = new Map<string, TermNode>([['', node]]);
  const plain = termToPlain(node, '', nodes, file);
  return deprecationFromFile(plain, problem => {
    const at =
      (problem.unknownKey === true
        ? nodes.get(`${problem.path}#option`)
        : undefined) ??
      nodes.get(problem.path) ??
      node;
    const rendered = renderTerm(at);
    const expected =
      problem.path === ''
        ? 'a list of {Name, Value} options with at least {since, Date}'
        : /^brownouts(?:\[\d+\])?$/.test(problem.path)
          ? 'a list of [{start, Date}, {duration, Duration}] lists'
          : problem.expected;
    throw new ConfigError(
      file,
      placeOf(at),
      problem.unknownKey === true
        ? `found unknown option ${problem.path.replace(/^.*\./, '')} in deprecation, expected ${problem.expected}`
        : `found ${rendered} for ${problem.path === '' ? 'deprecation' : `deprecation ${problem.path}`}, expected ${expected}`
    );
  });
}

/** Stands for a term no rule accepts (a tuple, another atom): refused, and shown from its node. */
const OTHER_TERM = Symbol('other term');

/**
 * A term as the plain value the rules check: a proplist becomes an object, a list of proplists
 * an array of objects, strings and binaries strings, `true`/`false` booleans. Records the node of
 * every path for the error position. Anything else stays the node itself, which the rules refuse.
 */
function termToPlain(
  node: TermNode,
  path: string,
  nodes: Map<string, TermNode>,
  file: string
): unknown {
  nodes.set(path, node);
  switch (node.kind) {
    case 'string':
    case 'binary':
    case 'float':
      return node.value;
    case 'atom':
      return node.value === 'true'
        ? true
        : node.value === 'false'
          ? false
          : OTHER_TERM;
    case 'integer':
      return Number(node.value);
    case 'list':
      if (
        path !== 'brownouts' &&
        node.elements.every(
          e =>
            e.kind === 'tuple' &&
            e.elements.length === 2 &&
            e.elements[0]!.kind === 'atom'
        )
      ) {
        // No prototype: `toString` or `__proto__` is a key like any other, refused as unknown.
        const object = Object.create(null) as Record<string, unknown>;
        const prefix = path === '' ? '' : `${path}.`;
        for (const element of node.elements) {
          const [key, item] = (element as { elements: TermNode[] })
            .elements as [TermNode & { value: string }, TermNode];
          const itemPath = `${prefix}${key.value}`;
          if (Object.hasOwn(object, key.value)) {
            throw new ConfigError(
              file,
              placeOf(element),
              `found ${shorten(key.value)} a second time in deprecation, expected each option once`
            );
          }
          // The option's value marks a bad value (termToPlain records it); its tuple an unknown key.
          object[key.value] = termToPlain(item, itemPath, nodes, file);
          nodes.set(`${prefix}${shorten(key.value)}#option`, element);
        }
        return object;
      }
      if (path === 'brownouts') {
        return node.elements.map((element, index) =>
          termToPlain(element, `brownouts[${index}]`, nodes, file)
        );
      }
      return OTHER_TERM;
    default:
      return OTHER_TERM;
  }
}
