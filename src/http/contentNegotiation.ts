/**
 * The original API's content negotiation: JSON or XML from the Accept header, q-values honoured
 * (RFC 9110 §12.5.1). No header, `*\/*` and `application/*` give JSON.
 *
 * Two departures from the grammar are read as real clients mean them, as common servers do:
 * a bare `*` is `*\/*`, and a q-value may omit its leading zero (`q=.2`). Java's
 * `HttpURLConnection` sends both in its default header,
 * `text/html, image/gif, image/jpeg, *; q=.2, *\/*; q=.2`, which must get JSON.
 */
import { BoundedMemo } from './BoundedMemo';

export type LegacyFormat = 'json' | 'xml';

/** The outcome of negotiation: a format, or why there is none (406, or 400 for a malformed header). */
export type Negotiation = LegacyFormat | 'not-acceptable' | 'malformed';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110's qvalue, plus the `.2` form without the leading zero that Java sends. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|\.\d{1,3}|1(?:\.0{0,3})?)$/;
const QUOTED = /^"(?:[^"\\]|\\.)*"$/;

/** Offered media types, in order of preference when the client rates them equally. */
const OFFERS: ReadonlyArray<readonly [LegacyFormat, string, string]> = [
  ['json', 'application', 'json'],
  ['xml', 'application', 'xml'],
];

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

function parseRange(text: string): MediaRange | undefined {
  const [rawType = '', ...params] = text.split(';');
  // A bare `*` stands for `*/*` (Java's default Accept sends it).
  const mediaType = rawType.trim() === '*' ? '*/*' : rawType;
  const slash = mediaType.indexOf('/');
  if (slash < 0) return undefined;
  const type = mediaType.slice(0, slash).trim().toLowerCase();
  const subtype = mediaType
    .slice(slash + 1)
    .trim()
    .toLowerCase();
  if (
    !TOKEN.test(type) ||
    !TOKEN.test(subtype) ||
    (type === '*' && subtype !== '*')
  )
    return undefined;
  let q = 1;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) return undefined;
    const name = param.slice(0, eq).trim().toLowerCase();
    const value = param.slice(eq + 1).trim();
    if (!TOKEN.test(name) || (!TOKEN.test(value) && !QUOTED.test(value)))
      return undefined;
    if (name === 'q') {
      if (!QVALUE.test(value)) return undefined;
      q = Number(value);
    }
  }
  return { type, subtype, q };
}

/** Parses an Accept header; undefined when it is malformed. */
export function parseAccept(header: string): MediaRange[] | undefined {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    // Empty list elements are allowed by the list syntax (RFC 9110 §5.6.1).
    if (part.trim() === '') continue;
    const range = parseRange(part);
    if (range === undefined) return undefined;
    ranges.push(range);
  }
  return ranges;
}

function specificity(range: MediaRange, type: string, subtype: string): number {
  if (range.type === type && range.subtype === subtype) return 3;
  if (range.type === type && range.subtype === '*') return 2;
  if (range.type === '*') return 1;
  return 0;
}

/** The outcomes of the Accept headers seen: pollers send the same few. */
const memo = new BoundedMemo(256, choose);

/** Chooses the response format for an Accept header (`undefined` when the request has none). */
export function negotiate(accept: string | undefined): Negotiation {
  return memo.get(accept);
}

function choose(accept: string | undefined): Negotiation {
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = parseAccept(accept);
  if (ranges === undefined) return 'malformed';
  let best: Negotiation = 'not-acceptable';
  let bestQ = 0;
  let bestSpecificity = 0;
  for (const [format, type, subtype] of OFFERS) {
    // The most specific range that matches an offer decides its quality.
    let q = 0;
    let matched = 0;
    for (const range of ranges) {
      const s = specificity(range, type, subtype);
      if (s > matched || (s === matched && s > 0 && range.q > q)) {
        matched = s;
        q = range.q;
      }
    }
    if (
      matched > 0 &&
      q > 0 &&
      (q > bestQ || (q === bestQ && matched > bestSpecificity))
    ) {
      best = format;
      bestQ = q;
      bestSpecificity = matched;
    }
  }
  return best;
}
