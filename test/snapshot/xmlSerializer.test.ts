import { XMLValidator } from 'fast-xml-parser';
import {
  xmlAttributeValue,
  xmlName,
  xmlSerializer,
} from '../../src/snapshot/xmlSerializer';
import { jsonSerializer } from '../../src/snapshot/jsonSerializer';

const wellFormed = (xml: string): boolean =>
  XMLValidator.validate(xml) === true;

describe('xmlSerializer', () => {
  it('should write the original compact forms', () => {
    expect(
      xmlSerializer.metric({
        names: ['count', 'one'],
        numbers: [3, 1],
        integer: true,
      })
    ).toBe("<metric count='3' one='1'/>");
    expect(
      xmlSerializer.metric({
        names: ['value', 'ms_since_reset'],
        numbers: [2, 3600123],
        integer: true,
      })
    ).toBe("<metric value='2' ms_since_reset='3600123'/>");
    expect(
      xmlSerializer.metrics([
        [
          'modRosterGets',
          { names: ['count', 'one'], numbers: [1, 0], integer: true },
        ],
        [
          'sessionCount',
          {
            names: ['value', 'ms_since_reset'],
            numbers: [2, 3600123],
            integer: true,
          },
        ],
      ])
    ).toBe(
      "<metrics><modRosterGets count='1' one='0'/><sessionCount value='2' ms_since_reset='3600123'/></metrics>"
    );
    expect(xmlSerializer.metrics([])).toBe('<metrics/>');
    expect(
      xmlSerializer.listing(
        'host_types',
        ['localhost', 'test type'],
        ['sessionCount'],
        []
      )
    ).toBe(
      '<list><host_types><localhost/><test_x0020_type/></host_types><metrics><sessionCount/></metrics><global/></list>'
    );
  });

  it('should encode datapoint names that are not XML names', () => {
    const xml = xmlSerializer.metric({
      names: ['n', '50', '999'],
      numbers: [1, 2, 3],
      integer: true,
    });
    expect(xml).toBe("<metric n='1' _x0035_0='2' _x0039_99='3'/>");
    expect(wellFormed(xml)).toBe(true);
  });

  it('should escape error messages', () => {
    const xml = xmlSerializer.error(
      'not_found',
      'no host type named "<a & \'b\'>\u0001"'
    );
    expect(xml).toBe(
      "<error code='not_found' message='no host type named &quot;&lt;a &amp; &apos;b&apos;&gt;\uFFFD&quot;'/>"
    );
    expect(wellFormed(xml)).toBe(true);
  });
});

describe('xmlName', () => {
  it.each([
    ['sessionCount', 'sessionCount'],
    ['backends.auth.authorize', 'backends.auth.authorize'],
    ['test type', 'test_x0020_type'],
    ['9lives', '_x0039_lives'],
    ['a:b', 'a_x003A_b'],
    ['-x', '_x002D_x'],
    ['_x0020_', '_x005F_x0020_'],
    ['été', 'été'],
    ['', '_'],
    ['a/b<c>', 'a_x002F_b_x003C_c_x003E_'],
    ['😀', '_x1F600_'],
    ['a😀b', 'a_x1F600_b'],
    // Letters of XML 1.0 fourth edition stay; those only the fifth allows are encoded.
    ['Ωmega中文', 'Ωmega中文'],
    ['Ĳ', '_x0132_'],
    ['aѐ', 'a_x0450_'],
    ['㐀', '_x3400_'],
    ['\u0301x', '_x0301_x'],
    ['x\u0301', 'x\u0301'],
    ['\uD800x', '_xD800_x'],
  ])('should encode %j as %j', (name, encoded) => {
    expect(xmlName(name)).toBe(encoded);
    expect(wellFormed(`<${xmlName(name)}/>`)).toBe(true);
  });

  it('should make every name well-formed (bounded random sample)', () => {
    let seed = 42;
    const random = (): number =>
      (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      const length = 1 + Math.floor(random() * 12);
      let name = '';
      for (let j = 0; j < length; j++)
        name += String.fromCodePoint(Math.floor(random() * 0x3000) + 1);
      const xml = `<${xmlName(name)} ${xmlName(name)}='${xmlAttributeValue(name)}'/>`;
      if (!wellFormed(xml))
        throw new Error(`not well-formed for ${JSON.stringify(name)}: ${xml}`);
    }
  });
});

describe('serializers and values that are not finite', () => {
  // README: never NaN or an infinity (NaN is served as 0, ±∞ as ±1.7976931348623157e308).
  const value = {
    names: ['a', 'b', 'c', 'd'],
    numbers: [NaN, Infinity, -Infinity, -0],
    integer: false,
  };

  it('should write NaN as 0, the infinities as ±Number.MAX_VALUE and -0 as 0 in XML', () => {
    const xml = xmlSerializer.metric(value);
    expect(xml).toBe(
      "<metric a='0' b='1.7976931348623157e+308' c='-1.7976931348623157e+308' d='0'/>"
    );
    expect(wellFormed(xml)).toBe(true);
  });

  it('should write them the same way in JSON', () => {
    expect(JSON.parse(jsonSerializer.metric(value))).toEqual({
      metric: { a: 0, b: Number.MAX_VALUE, c: -Number.MAX_VALUE, d: 0 },
    });
  });
});
