// Network rules of the installer core (core.md §6): CIDR math, topology and platform rules, CIDR and
// VIP validation, dual-stack, machine-network calculation, connectivity groups, node IPs, VIP DHCP.

export * from './cidr.ts';
export * from './cidr-rules.ts';
export * from './connectivity.ts';
export * from './connectivity-report.ts';
export * from './dhcp.ts';
export * from './dual-stack.ts';
export * from './host-networks.ts';
export * from './machine-network.ts';
export * from './network-input.ts';
export * from './node-ips.ts';
export * from './platform.ts';
export * from './topology.ts';
export * from './vips.ts';
