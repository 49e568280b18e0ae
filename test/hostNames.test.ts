import { canonicalHost, isLoopbackAddress } from '../src/hostNames';

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['128.0.0.1', false],
    ['example.com', false],
  ])('should decide %s by address: %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });
});

describe('canonicalHost', () => {
  it.each([
    ['localhost:80', 'localhost'],
    ['[::1]:9', 'localhost'],
    ['127.0.0.1', 'localhost'],
    ['127.0.0.2:8088', 'localhost'],
    ['LocalHost', 'localhost'],
    ['[0:0:0:0:0:0:0:1]', 'localhost'],
    ['::1', 'localhost'],
    ['Example.COM:1', 'example.com'],
    ['example.com.', 'example.com'],
    ['[2001:db8::1]:80', '2001:db8::1'],
  ])('should reduce %s to %s', (host, canonical) => {
    expect(canonicalHost(host)).toBe(canonical);
  });
});
