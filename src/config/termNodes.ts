/** The terms the term parser reads, each with where it starts in the file. */

/** Where a node starts: 1-based line and column (columns count Unicode code points). */
export interface TermPosition {
  line: number;
  column: number;
}

/** An atom, unquoted (`abc_def@x`) or quoted (`'Any atom'`). */
export interface AtomNode extends TermPosition {
  kind: 'atom';
  value: string;
}

/** A string `"..."`; adjacent strings are concatenated as in Erlang. */
export interface StringNode extends TermPosition {
  kind: 'string';
  value: string;
}

/** A binary made of string segments, `<<"...">>` or `<<"..."/utf8>>`. */
export interface BinaryNode extends TermPosition {
  kind: 'binary';
  value: string;
}

/** An integer: decimal, `Base#Digits` or a character `$c`. */
export interface IntegerNode extends TermPosition {
  kind: 'integer';
  value: bigint;
}

/** A float such as `1.5`, `-2.0e-3`. Always finite. */
export interface FloatNode extends TermPosition {
  kind: 'float';
  value: number;
}

/** A tuple `{...}`. */
export interface TupleNode extends TermPosition {
  kind: 'tuple';
  elements: TermNode[];
}

/** A proper list `[...]`. */
export interface ListNode extends TermPosition {
  kind: 'list';
  elements: TermNode[];
}

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
