/**
 * The XML serializer against expat, the XML 1.0 fourth-edition parser behind Python and many
 * other clients: every name of every BMP code point must parse and read back.
 */
import { spawn } from 'node:child_process';
import { xmlName, xmlSerializer } from '../../src/snapshot/xmlSerializer';
import { describeWithClients } from '../realClients/support';

/**
 * `parse`: stdin holds documents separated by NUL (never part of XML); one JSON line per
 * document, the element and attribute names in order, or expat's error.
 * `probe`: one digit per BMP code point c, bit 1 set when `<c/>` parses and bit 2 when `<acb/>`
 * does (surrogates, which UTF-8 cannot carry, read 0).
 */
const SCRIPT = `
import json, sys
import xml.parsers.expat as expat

def parses(text):
    try:
        expat.ParserCreate().Parse(text.encode('utf-8'), True)
        return True
    except expat.ExpatError:
        return False

if sys.argv[1] == 'probe':
    out = []
    for c in range(0x10000):
        if 0xD800 <= c <= 0xDFFF:
            out.append('0')
            continue
        ch = chr(c)
        out.append(str(parses('<%s/>' % ch) + 2 * parses('<a%sb/>' % ch)))
    sys.stdout.write(''.join(out))
else:
    for doc in sys.stdin.buffer.read().split(b'\\0'):
        names = []
        parser = expat.ParserCreate()
        parser.StartElementHandler = lambda name, attrs: names.extend([name, *attrs])
        try:
            parser.Parse(doc, True)
            print(json.dumps({'names': names}))
        except expat.ExpatError as error:
            print(json.dumps({'error': str(error)}))
`;

type Parsed = { names: string[] } | { error: string };

/** Runs the script (at most 20 s) and resolves to its standard output; its stderr goes into the error. */
function python(mode: 'parse' | 'probe', input = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', SCRIPT, mode], {
      timeout: 20_000,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', code =>
      code === 0
        ? resolve(Buffer.concat(chunks).toString('utf8'))
        : reject(new Error(`python3 exited with ${code}:\n${stderr}`))
    );
    child.stdin.end(input);
  });
}

/** The name an `_xHHHH_`-encoded XML name stands for. */
function decodeName(name: string): string {
  return name.replace(/_x([0-9A-F]{4,6})_/g, (_, hex: string) =>
    String.fromCodePoint(parseInt(hex, 16))
  );
}

const BMP = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c));
const BATCH = 8192;

describeWithClients('python3')('xmlSerializer read by expat', () => {
  it('should serve host types, metric and datapoint names of every BMP code point as XML expat parses and that decodes to them', async () => {
    const documents: string[] = [];
    const expected: string[][] = [];
    for (let first = 0; first < BMP.length; first += BATCH) {
      const chars = BMP.slice(first, first + BATCH);
      // A host type of one character tests it first in a name; `m` + it, after the first.
      const hostTypes = chars;
      const metrics = chars.map(c => `m${c}`);
      documents.push(
        xmlSerializer.listing('host_types', hostTypes, metrics, [])
      );
      expected.push([
        'list',
        'host_types',
        ...hostTypes,
        'metrics',
        ...metrics,
        'global',
      ]);
      documents.push(
        xmlSerializer.metrics(
          chars.map(c => [
            `${c}.count`,
            { names: [c, `v${c}`], numbers: [1, 2], integer: true },
          ])
        )
      );
      expected.push([
        'metrics',
        ...chars.flatMap(c => [`${c}.count`, c, `v${c}`]),
      ]);
    }
    const lines = (await python('parse', documents.join('\0')))
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(documents.length);
    lines.forEach((line, index) => {
      const parsed = JSON.parse(line) as Parsed;
      if ('error' in parsed)
        throw new Error(
          `document ${index} (code points from U+${(Math.floor(index / 2) * BATCH).toString(16).toUpperCase()}) is not well-formed for expat: ${parsed.error}`
        );
      const decoded = parsed.names.map(decodeName);
      const wrong = decoded.findIndex(
        (name, i) => name !== expected[index]![i]
      );
      expect(
        wrong === -1 ? undefined : [decoded[wrong], expected[index]![wrong]]
      ).toBeUndefined();
      expect(decoded).toHaveLength(expected[index]!.length);
    });
  });

  it('should write a character as is exactly where expat accepts it (":" aside, reserved for namespaces)', async () => {
    const accepted = await python('probe');
    expect(accepted).toHaveLength(0x10000);
    const mismatches: string[] = [];
    for (let c = 0; c < 0x10000; c++) {
      if (c === 0x3a) continue;
      const ch = BMP[c]!;
      const flags = Number(accepted[c]);
      const asIsFirst = xmlName(ch) === ch;
      const asIsAfter = xmlName(`a${ch}`) === `a${ch}`;
      if (
        asIsFirst !== ((flags & 1) !== 0) ||
        asIsAfter !== ((flags & 2) !== 0)
      )
        mismatches.push(`U+${c.toString(16).toUpperCase().padStart(4, '0')}`);
    }
    expect(mismatches).toEqual([]);
    // The letters the issue names, valid only in the fifth edition, are escaped.
    expect(xmlName('Ĳ ѐ 㐀')).toBe('_x0132__x0020__x0450__x0020__x3400_');
  });
});
