/** The terms the term parser reads, each with where it starts in the file. */

/** Where a node starts: 1-based line and column (columns count Unicode code points). */
export interface TermPosition {
  line: number;
  column: number;
}

/** A term with a value of its own; `kind` says which. */
interface ValueNode<K extends string, V> extends TermPosition {
  kind: K;
  value: V;
}

/** An atom, unquoted (`abc_def@x`) or quoted (`'Any atom'`). */
export type AtomNode = ValueNode<'atom', string>;
/** A string `"..."`; adjacent strings are concatenated as in Erlang. */
export type StringNode = ValueNode<'string', string>;
/** A binary made of string segments, `<<"...">>` or `<<"..."/utf8>>`. */
export type BinaryNode = ValueNode<'binary', string>;
/** An integer: decimal, `Base#Digits` or a character `$c`. */
export type IntegerNode = ValueNode<'integer', bigint>;
/** A float such as `1.5`, `-2.0e-3`. Always finite. */
export type FloatNode = ValueNode<'float', number>;

/** A term made of terms; `kind` says which. */
interface ElementsNode<K extends string> extends TermPosition {
  kind: K;
  elements: TermNode[];
}

/** A tuple `{...}`. */
export type TupleNode = ElementsNode<'tuple'>;
/** A proper list `[...]`. */
export type ListNode = ElementsNode<'list'>;

/** Any term the parser accepts. */
export type TermNode =
  | AtomNode
  | StringNode
  | BinaryNode
  | IntegerNode
  | FloatNode
  | TupleNode
  | ListNode;

/** `line 3, column 5`: where a term is, as messages say it. */
export function placeOf(at: TermPosition): string {
  return `line ${at.line}, column ${at.column}`;
}
