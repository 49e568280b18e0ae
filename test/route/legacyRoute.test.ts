import {
  groupAlias,
  parseLegacyRoute,
  routeTemplate,
  type LegacyRoute,
} from '../../src/route/legacyRoute';

describe('parseLegacyRoute', () => {
  it.each<[string, LegacyRoute]>([
    ['/metrics', { kind: 'listing', path: '/metrics' }],
    ['/metrics/', { kind: 'listing', path: '/metrics' }],
    ['/metrics?x=/y', { kind: 'listing', path: '/metrics' }],
    ['/metrics/all', { kind: 'all', path: '/metrics/all' }],
    [
      '/metrics/all/c',
      { kind: 'all-metric', path: '/metrics/all/c', metric: 'c' },
    ],
    ['/metrics/global/', { kind: 'global', path: '/metrics/global' }],
    [
      '/metrics/global/a.b',
      { kind: 'global-metric', path: '/metrics/global/a.b', metric: 'a.b' },
    ],
    [
      '/metrics/host_type/a%2Fb',
      {
        kind: 'group',
        path: '/metrics/host_type/a/b',
        variant: 'host_type',
        group: 'a/b',
      },
    ],
    [
      '/metrics/host/test%20type/c',
      {
        kind: 'group-metric',
        path: '/metrics/host/test type/c',
        variant: 'host',
        group: 'test type',
        metric: 'c',
      },
    ],
    ['/metrics/a+b', { kind: 'unknown', path: '/metrics/a+b' }],
    ['/metrics/all/c/d', { kind: 'unknown', path: '/metrics/all/c/d' }],
    ['/metrics/host_type', { kind: 'unknown', path: '/metrics/host_type' }],
    ['/', { kind: 'unknown', path: '/' }],
    ['/metrics//all', { kind: 'empty-segment' }],
    ['/metrics/%zz', { kind: 'malformed' }],
  ])('should read %s', (path, expected) => {
    expect(parseLegacyRoute(path)).toEqual(expected);
  });

  it('should read the path below a prefix from where it starts', () => {
    expect(parseLegacyRoute('/api/metrics/all/c?q', '/api'.length)).toEqual({
      kind: 'all-metric',
      path: '/metrics/all/c',
      metric: 'c',
    });
  });
});

describe('routeTemplate', () => {
  it.each<[string, string | undefined]>([
    ['/metrics', '/api/metrics'],
    ['/metrics/global', '/api/metrics/global'],
    ['/metrics/all/x', '/api/metrics/all/:metric'],
    ['/metrics/host_type/x', '/api/metrics/host_type/:host_type'],
    ['/metrics/host_type/x/y', '/api/metrics/host_type/:host_type/:metric'],
    ['/metrics/host/x', undefined],
    ['/metrics/nope', undefined],
  ])('should name %s by its template', (path, expected) => {
    expect(routeTemplate(parseLegacyRoute(path), '/api', 'host_type')).toBe(
      expected
    );
  });
});

describe('groupAlias', () => {
  it('should spell spaces as underscores', () => {
    expect(groupAlias('test type a')).toBe('test_type_a');
  });
});
