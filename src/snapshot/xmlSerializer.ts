import { legacyNumber, type LegacyValue } from './legacyValues';
import {
  listingOf,
  type LegacySerializer,
  type MetricEntries,
} from './serializer';
import { isXmlNameFollow, isXmlNameStart } from './xmlNameChars';

/*
 * The original's compact XML (no declaration, no whitespace, single-quoted attributes,
 * empty elements self-closed), except that ours is always well-formed: a metric, host type
 * or datapoint name that is not an XML name is encoded the way XmlConvert.EncodeName does,
 * each offending character written as _xHHHH_ (its code point in hex). So `test type` becomes
 * `test_x0020_type` and the datapoint `50` becomes `_x0035_0`. A literal `_` that would read
 * as such an escape is itself escaped as `_x005F_`. A name is only written as is when XML 1.0
 * fourth edition accepts it (see xmlNameChars.ts), so that expat and every parser built on
 * it read it; characters outside the Basic Multilingual Plane are always escaped.
 */

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
const UNDERSCORE = 0x5f;

function escapeChar(codePoint: number): string {
  return `_x${codePoint.toString(16).toUpperCase().padStart(4, '0')}_`;
}

/** An arbitrary name as a well-formed XML element or attribute name. */
export function xmlName(name: string): string {
  if (PLAIN_NAME.test(name)) return name;
  if (name === '') return '_';
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    const codePoint = name.codePointAt(i)!;
    if (codePoint > 0xffff) {
      out += escapeChar(codePoint);
      i++;
    } else if (
      !(i === 0 ? isXmlNameStart(code) : isXmlNameFollow(code)) ||
      (code === UNDERSCORE && LOOKS_LIKE_ESCAPE.test(name.slice(i + 1, i + 7)))
    ) {
      out += escapeChar(code);
    } else {
      out += name[i];
    }
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
  listing: listingOf('<list>', '', '</list>', nameList),
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
