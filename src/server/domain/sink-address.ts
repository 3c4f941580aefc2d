// Where a webhook sink may point: not into the network serve runs in. A sink's owner is any
// subgroup owner, and serve POSTs wherever the sink says: private, link-local (the cloud
// metadata endpoints among them), shared and unspecified addresses are refused, by name when
// the sink is created and by the addresses its name resolves to when a delivery connects (the
// connection uses the address that was checked, so a name cannot rebind in between).
// Loopback stays allowed: a local receiver is what serve's own tests and users' scripts run.
// `serve --allow-private-sinks` turns the check off.
import dns from 'node:dns';
import net from 'node:net';

const RANGES: [kind: string, family: 'ipv4' | 'ipv6', network: string, prefix: number][] = [
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['unspecified', 'ipv6', '::', 128],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['private', 'ipv6', 'fc00::', 7],
  ['private', 'ipv6', 'fec0::', 10],
  ['shared (carrier-grade NAT)', 'ipv4', '100.64.0.0', 10],
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['broadcast', 'ipv4', '255.255.255.255', 32],
  ['multicast', 'ipv6', 'ff00::', 8],
];

/** One BlockList per kind: node's BlockList also matches IPv4-mapped IPv6 (::ffff:10.0.0.1) against IPv4 ranges. */
const LISTS = new Map<string, net.BlockList>();
for (const [kind, family, network, prefix] of RANGES) {
  let list = LISTS.get(kind);
  if (!list) LISTS.set(kind, (list = new net.BlockList()));
  list.addSubnet(network, prefix, family);
}

/** Names of cloud metadata services (their addresses are link-local, or answered by the host's resolver). */
const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'metadata.azure.internal', 'instance-data', 'instance-data.ec2.internal']);

/** What kind of address `ip` is when a sink may not use it (undefined: it may). */
export function refusedAddressKind(ip: string): string | undefined {
  const family = net.isIP(ip);
  if (!family) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of LISTS) if (list.check(ip, type)) return kind;
  return undefined;
}

/** Why a sink URL's host may not be used (undefined: it may, as far as its name tells). */
export function sinkHostProblem(sink: string): string | undefined {
  const url = URL.parse(sink);
  if (!url) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (METADATA_HOSTS.has(host)) return `must not point at a cloud metadata service (${host})`;
  const kind = refusedAddressKind(host);
  return kind ? `must not point at a ${kind} address (${host}); serve --allow-private-sinks allows it` : undefined;
}

/** A delivery's connection refused by where its name resolved. */
class PrivateSinkError extends Error {
  readonly code = 'EPRIVATESINK';
}

type LookupAll = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/**
 * A `lookup` for a sink's connection: `resolve` (dns.lookup unless a test injects a stub),
 * then every address the name has is checked (unless not `refusePrivate`); the connection
 * goes to the addresses checked.
 */
export function guardedLookup(resolve: LookupAll = dns.lookup, refusePrivate = true): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      const done = callback;
      if (err) return done(err, []);
      const refused = refusePrivate ? addresses.find((a) => refusedAddressKind(a.address)) : undefined;
      if (refused) return done(new PrivateSinkError(`${hostname} resolves to ${refused.address}, a ${refusedAddressKind(refused.address)} address (serve --allow-private-sinks allows it)`), []);
      if (options.all) return done(null, addresses);
      const first = addresses[0];
      if (!first) return done(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      done(null, first.address, first.family);
    });
  };
}
