/**
 * Host names and addresses: what counts as loopback, by address, and a Host header reduced to
 * what routing compares. Every listener, Host check and warning decides loopback here.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/**
 * Whether an address is loopback: 127.0.0.0/8, ::1 (however written, `0:0:0:0:0:0:0:1`
 * included), ::ffff:127.0.0.0/104, or the name `localhost`. Anything else (host names,
 * `0.0.0.0`, `::`) may be reachable from other machines.
 */
export function isLoopbackAddress(address: string): boolean {
  if (address.toLowerCase() === 'localhost') return true;
  const version = isIP(address);
  if (version === 0) return false;
  return LOOPBACK.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/** The canonical name of every loopback Host. */
export const LOOPBACK_HOST = 'localhost';

/**
 * A Host header (or a handler's host setting) reduced to what routing compares: lowercased,
 * without port or IPv6 brackets, and every loopback name or address as `localhost`.
 */
export function canonicalHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    name = end < 0 ? name : name.slice(1, end);
  } else {
    const colon = name.indexOf(':');
    // More than one colon is a bare IPv6 address, which has no port.
    if (colon >= 0 && name.indexOf(':', colon + 1) < 0)
      name = name.slice(0, colon);
  }
  if (name.endsWith('.')) name = name.slice(0, -1);
  return isLoopbackAddress(name) ? LOOPBACK_HOST : name;
}
