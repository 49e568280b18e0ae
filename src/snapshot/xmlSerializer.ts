import { legacyNumber, type LegacyValue } from './legacyValues';
import type { LegacySerializer, MetricEntries } from './serializer';

/*
 * The original's compact XML (no declaration, no whitespace, single-quoted attributes,
 * empty elements self-closed), except that ours is always well-formed: a metric, host type
 * or datapoint name that is not an XML name is encoded the way XmlConvert.EncodeName does,
 * each offending character written as _xHHHH_ (its code point in hex). So `test type` becomes
 * `test_x0020_type` and the datapoint `50` becomes `_x0035_0`. A literal `_` that would read
 * as such an escape is itself escaped as `_x005F_`. Characters outside the Basic Multilingual
 * Plane are escaped too: XML 1.0 before its fifth edition, and many parsers, reject them in names.
 */

// XML 1.0 (fifth edition) NameStartChar, without ':' (reserved for namespaces).
// The classes list ZWNJ, ZWJ and combining marks on purpose: XML allows them in names.
/* eslint-disable no-misleading-character-class */
const NAME_START =
  /[A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]/u;
const NAME_CHAR = /[-.0-9\u00B7\u0300-\u036F\u203F-\u2040]/u;
/* eslint-enable no-misleading-character-class */
const LOOKS_LIKE_ESCAPE = /^x[0-9A-Fa-f]{4}_/;
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9.-]*$/;
// Characters XML 1.0 does not allow anywhere, even escaped.
const INVALID_XML_CHARS =
  /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ATTRIBUTE_SPECIALS = /[&<>'"]/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  "'": '&apos;',
  '"': '&quot;',
};

function escapeChar(codePoint: number): string {
  return `_x${codePoint.toString(16).toUpperCase().padStart(4, '0')}_`;
}

/** An arbitrary name as a well-formed XML element or attribute name. */
export function xmlName(name: string): string {
  if (PLAIN_NAME.test(name)) return name;
  if (name === '') return '_';
  let out = '';
  let first = true;
  let offset = 0;
  for (const char of name) {
    const codePoint = char.codePointAt(0)!;
    const allowed = NAME_START.test(char) || (!first && NAME_CHAR.test(char));
    if (
      !allowed ||
      (char === '_' && LOOKS_LIKE_ESCAPE.test(name.slice(offset + 1)))
    )
      out += escapeChar(codePoint);
    else out += char;
    first = false;
    offset += char.length;
  }
  return out;
}

/** Text safe inside a single-quoted attribute value. */
export function xmlAttributeValue(text: string): string {
  return text
    .replace(INVALID_XML_CHARS, '\uFFFD')
    .replace(ATTRIBUTE_SPECIALS, c => ENTITIES[c]!);
}

function element(name: string, v: LegacyValue): string {
  let out = `<${xmlName(name)}`;
  for (let i = 0; i < v.names.length; i++)
    out += ` ${xmlName(v.names[i]!)}='${legacyNumber(v.numbers[i]!, v.integer)}'`;
  return `${out}/>`;
}

function nameList(tag: string, list: readonly string[]): string {
  if (list.length === 0) return `<${tag}/>`;
  let out = `<${tag}>`;
  for (const name of list) out += `<${xmlName(name)}/>`;
  return `${out}</${tag}>`;
}

export const xmlSerializer: LegacySerializer = Object.freeze({
  contentType: 'application/xml',
  listing(
    groupsKey: string,
    groups: readonly string[],
    metrics: readonly string[],
    global: readonly string[]
  ): string {
    return `<list>${nameList(groupsKey, groups)}${nameList('metrics', metrics)}${nameList('global', global)}</list>`;
  },
  metrics(entries: MetricEntries): string {
    if (entries.length === 0) return '<metrics/>';
    let out = '<metrics>';
    for (const [name, v] of entries) out += element(name, v);
    return `${out}</metrics>`;
  },
  metric(v: LegacyValue): string {
    return element('metric', v);
  },
  error(code: string, message: string): string {
    return `<error code='${xmlAttributeValue(code)}' message='${xmlAttributeValue(message)}'/>`;
  },
});
