import type { FastifyInstance } from 'fastify';
import { negotiate, parseAccept } from '../../src/http/contentNegotiation';
import { createApp, createRig, type Rig } from '../helpers';

/** The Accept header every Java `HttpURLConnection` sends unless told otherwise. */
const JAVA_DEFAULT_ACCEPT =
  'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2';

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
    // Java's HttpURLConnection default: a bare `*` and q-values without the leading zero.
    ['text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2', 'json'],
    ['*', 'json'],
    ['*;q=0.5, application/xml', 'xml'],
    ['text/html, *;q=0', 'not-acceptable'],
    ['application/json;q=.5, application/xml;q=.25', 'json'],
    ['**', 'malformed'],
    ['*/', 'malformed'],
    ['* /json', 'malformed'],
    ['application/json;q=.', 'malformed'],
    ['application/json;q=.1234', 'malformed'],
    ['application/json;q=1.5', 'malformed'],
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

  it('should read a bare * as */*', () => {
    expect(parseAccept('*; q=.2')).toEqual([
      { type: '*', subtype: '*', q: 0.2 },
    ]);
  });
});

describe('the legacy API behind negotiate', () => {
  let rig: Rig;
  let app: FastifyInstance;
  beforeEach(async () => {
    rig = createRig({ hostTypes: ['localhost'] });
    app = await createApp(rig.reader);
    await rig.flush();
  });
  afterEach(async () => {
    await app.close();
    await rig.close();
  });

  it.each([
    [JAVA_DEFAULT_ACCEPT, 200, 'application/json'],
    ['*', 200, 'application/json'],
    ['text/html, *;q=0', 406, undefined],
    ['text/html, *;q=banana', 400, 'application/json'],
  ])('should answer Accept %j with %i', async (accept, status, type) => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/metrics',
      headers: { accept },
    });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe(type);
    if (status === 200)
      expect(JSON.parse(res.body)).toMatchObject({ host_types: ['localhost'] });
  });
});
