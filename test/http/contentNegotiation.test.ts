import { negotiate, parseAccept } from '../../src/http/contentNegotiation';

describe('negotiate', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/json', 'json'],
    ['APPLICATION/JSON', 'json'],
    ['application/xml', 'xml'],
    ['application/xml, */*', 'xml'],
    ['application/xml;q=0.5, application/json', 'json'],
    ['application/xml, application/json;q=0.9', 'xml'],
    ['*/*, application/json;q=0', 'xml'],
    ['text/html, application/xml;q=0.1', 'xml'],
    ['application/json;charset=utf-8', 'json'],
    ['application/json; q="0.5"', 'malformed'],
    ['text/html', 'not-acceptable'],
    ['application/json;q=0', 'not-acceptable'],
    ['text/*', 'not-acceptable'],
    ['application/json,', 'json'],
    ['json', 'malformed'],
    ['application/', 'malformed'],
    ['*/json', 'malformed'],
    ['application/json;q=2', 'malformed'],
    ['application/json;q=0.1234', 'malformed'],
    ['application/json;q', 'malformed'],
    ['application/json;a="unterminated', 'malformed'],
  ])('should answer %j with %s', (accept, expected) => {
    expect(negotiate(accept)).toBe(expected);
  });
});

describe('parseAccept', () => {
  it('should read types, subtypes and q-values and skip empty list elements', () => {
    expect(parseAccept('text/html;level=1;q=0.5 , ,*/*;q=0.1')).toEqual([
      { type: 'text', subtype: 'html', q: 0.5 },
      { type: '*', subtype: '*', q: 0.1 },
    ]);
  });
});
