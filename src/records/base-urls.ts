// The base URLs hosts use to reach the REST API and the image service, and where they come from.
// In order: SERVICE_BASE_URL / IMAGE_SERVICE_BASE_URL when set; else the address of the object
// that exposes the server (a Route, an Ingress or the Service itself, read from the API by
// base-url-discovery.ts); else the server's own listen address. Everything here is pure: the
// object → URL functions and the state that combines the sources and tells listeners when the
// result changes.
import type { KubeObject } from '../runtime/index.ts';

/** Base URLs written into status, the discovery image and REST replies. */
export interface ServiceUrls {
  serviceBaseUrl: string;
  imageServiceBaseUrl: string;
}

// Only the fields read here; the API objects carry more.

export interface RouteObject extends KubeObject {
  spec?: { host?: string; tls?: { termination?: string } | null };
  status?: {
    ingress?: { host?: string; conditions?: { type?: string; status?: string }[] }[];
  };
}

interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
}

export interface IngressObject extends KubeObject {
  spec?: {
    rules?: { host?: string }[];
    tls?: { hosts?: string[] }[];
  };
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] } };
}

export interface ServiceObject extends KubeObject {
  spec?: {
    type?: string;
    ports?: { name?: string; port?: number; nodePort?: number }[];
  };
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] } };
}

/** A host name or address a URL can be built on (no wildcard, no blanks). */
function usableHost(host: string | undefined): string | undefined {
  const h = host?.trim();
  return h && !h.includes('*') && !/\s/.test(h) ? h : undefined;
}

/** `scheme://host[:port]`, IPv6 addresses in brackets, the scheme's default port left out. */
export function formatBaseUrl(scheme: 'http' | 'https', host: string, port?: number): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const defaultPort = scheme === 'https' ? 443 : 80;
  return `${scheme}://${h}${port === undefined || port === defaultPort ? '' : `:${port}`}`;
}

/**
 * A Route's URL: the host the router admitted it under (status), else spec.host; https when the
 * Route terminates TLS (spec.tls), http otherwise. Undefined while it has no host.
 */
export function routeBaseUrl(route: RouteObject): string | undefined {
  const ingress = route.status?.ingress ?? [];
  const admitted = ingress.find(
    (i) => usableHost(i.host) && i.conditions?.some((c) => c.type === 'Admitted' && c.status === 'True'),
  );
  const host = usableHost(
    admitted?.host ?? ingress.find((i) => usableHost(i.host))?.host ?? route.spec?.host,
  );
  return host ? formatBaseUrl(route.spec?.tls ? 'https' : 'http', host) : undefined;
}

/** Whether a TLS host entry (possibly `*.example.com`, one label deep) covers `host`. */
function tlsCovers(entry: string, host: string): boolean {
  const e = entry.toLowerCase();
  const h = host.toLowerCase();
  if (e === h) return true;
  return e.startsWith('*.') && h.endsWith(e.slice(1)) && !h.slice(0, -(e.length - 1)).includes('.');
}

/**
 * An Ingress's URL: the first rule's host, https when a `tls` entry lists it; with no host in any
 * rule, the address the ingress controller published (status.loadBalancer), over http.
 */
export function ingressBaseUrl(ingress: IngressObject): string | undefined {
  const host = usableHost(ingress.spec?.rules?.find((r) => usableHost(r.host))?.host);
  if (host) {
    const tls = (ingress.spec?.tls ?? []).some((t) => (t.hosts ?? []).some((e) => tlsCovers(e, host)));
    return formatBaseUrl(tls ? 'https' : 'http', host);
  }
  const lb = ingress.status?.loadBalancer?.ingress?.find((i) => usableHost(i.ip ?? i.hostname));
  const address = usableHost(lb?.ip ?? lb?.hostname);
  return address ? formatBaseUrl('http', address) : undefined;
}

export interface ServiceAddress {
  url: string;
  /** 'load-balancer': reachable from outside; 'cluster': the in-cluster DNS name only. */
  reach: 'load-balancer' | 'cluster';
  /** Set for a NodePort Service: what an administrator must do to reach it from outside. */
  hint?: string;
}

/**
 * The Service's URL on its `api` port (else its first): a LoadBalancer's published address
 * (status.loadBalancer.ingress[0], ip before hostname); otherwise — ClusterIP, NodePort, or a
 * LoadBalancer still waiting for an address — its cluster DNS name, which only clients inside the
 * hub resolve. A NodePort's outside address needs a node's address, which the Service does not say.
 * https only on port 443.
 */
export function serviceAddress(svc: ServiceObject): ServiceAddress | undefined {
  const type = svc.spec?.type ?? 'ClusterIP';
  const ports = svc.spec?.ports ?? [];
  const port = ports.find((p) => p.name === 'api') ?? ports[0];
  if (type === 'ExternalName' || !port?.port) return undefined;
  const scheme = port.port === 443 ? 'https' : 'http';
  if (type === 'LoadBalancer') {
    const lb = svc.status?.loadBalancer?.ingress?.find((i) => usableHost(i.ip ?? i.hostname));
    const address = usableHost(lb?.ip ?? lb?.hostname);
    if (address) return { url: formatBaseUrl(scheme, address, port.port), reach: 'load-balancer' };
  }
  const { name, namespace } = svc.metadata;
  if (!name || !namespace) return undefined;
  const url = formatBaseUrl(scheme, `${name}.${namespace}.svc`, port.port);
  if (type === 'NodePort' && port.nodePort) {
    return {
      url,
      reach: 'cluster',
      hint: `NodePort ${port.nodePort}: set SERVICE_BASE_URL to http://<node address>:${port.nodePort} for hosts outside the cluster`,
    };
  }
  return { url, reach: 'cluster' };
}

export interface DiscoveredBaseUrl {
  url: string;
  source: 'Route' | 'Ingress' | 'Service';
  name: string;
  hint?: string;
}

/** The first of Route, Ingress, Service that yields a URL. */
export function discoverBaseUrl(objects: {
  route?: RouteObject | undefined;
  ingress?: IngressObject | undefined;
  service?: ServiceObject | undefined;
}): DiscoveredBaseUrl | undefined {
  const { route, ingress, service } = objects;
  const fromRoute = route && routeBaseUrl(route);
  if (fromRoute) return { url: fromRoute, source: 'Route', name: route.metadata.name ?? '' };
  const fromIngress = ingress && ingressBaseUrl(ingress);
  if (fromIngress) return { url: fromIngress, source: 'Ingress', name: ingress.metadata.name ?? '' };
  const fromService = service && serviceAddress(service);
  if (fromService) {
    return {
      url: fromService.url,
      source: 'Service',
      name: service.metadata.name ?? '',
      ...(fromService.hint ? { hint: fromService.hint } : {}),
    };
  }
  return undefined;
}

export interface BaseUrlSources {
  /** SERVICE_BASE_URL as set; undefined when not set. */
  service: string | undefined;
  /** IMAGE_SERVICE_BASE_URL as set; undefined when not set. */
  image: string | undefined;
  /** From the Route/Ingress/Service; undefined when none yields one (or none is watched). */
  discovered: string | undefined;
  /** The REST server's own address (config.ts listenBaseUrl). */
  listen: string;
}

/** Explicit settings win; the image service follows the service base URL unless set itself. */
export function effectiveUrls(s: BaseUrlSources): ServiceUrls {
  const serviceBaseUrl = s.service ?? s.discovered ?? s.listen;
  return { serviceBaseUrl, imageServiceBaseUrl: s.image ?? serviceBaseUrl };
}

export type UrlsListener = (urls: ServiceUrls, previous: ServiceUrls) => void;

/** The current base URLs and their sources; listeners hear only of real changes. */
export class ServiceUrlState {
  private sourceValues: BaseUrlSources;
  private value: ServiceUrls;
  private readonly listeners: UrlsListener[] = [];

  constructor(sources: BaseUrlSources) {
    this.sourceValues = { ...sources };
    this.value = effectiveUrls(this.sourceValues);
  }

  get current(): ServiceUrls {
    return this.value;
  }

  get sources(): Readonly<BaseUrlSources> {
    return this.sourceValues;
  }

  /** Changes some sources; returns (and tells listeners) whether the effective URLs changed. */
  update(change: Partial<BaseUrlSources>): boolean {
    this.sourceValues = { ...this.sourceValues, ...change };
    const next = effectiveUrls(this.sourceValues);
    const previous = this.value;
    if (
      next.serviceBaseUrl === previous.serviceBaseUrl &&
      next.imageServiceBaseUrl === previous.imageServiceBaseUrl
    ) {
      return false;
    }
    this.value = next;
    for (const listener of this.listeners) listener(next, previous);
    return true;
  }

  onChange(listener: UrlsListener): void {
    this.listeners.push(listener);
  }
}
