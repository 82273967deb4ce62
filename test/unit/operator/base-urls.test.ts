import { describe, expect, it } from 'vitest';
import { baseUrlCacheOptions } from '../../../src/operator/base-url-discovery.ts';
import {
  discoverBaseUrl,
  effectiveUrls,
  formatBaseUrl,
  type IngressObject,
  ingressBaseUrl,
  type RouteObject,
  routeBaseUrl,
  type ServiceObject,
  ServiceUrlState,
  serviceAddress,
} from '../../../src/records/base-urls.ts';
import { listenBaseUrl, loadOperatorConfig } from '../../../src/records/config.ts';

const meta = { name: 'agent-install-operator-api', namespace: 'aio' };

function route(spec: RouteObject['spec'], status?: RouteObject['status']): RouteObject {
  return { metadata: meta, spec, ...(status ? { status } : {}) };
}

function ingress(spec: IngressObject['spec'], status?: IngressObject['status']): IngressObject {
  return { metadata: meta, spec, ...(status ? { status } : {}) };
}

function service(spec: ServiceObject['spec'], status?: ServiceObject['status']): ServiceObject {
  return { metadata: meta, spec, ...(status ? { status } : {}) };
}

describe('formatBaseUrl', () => {
  it('leaves out default ports and brackets IPv6 addresses', () => {
    expect(formatBaseUrl('https', 'a.example.com', 443)).toBe('https://a.example.com');
    expect(formatBaseUrl('http', 'a.example.com', 80)).toBe('http://a.example.com');
    expect(formatBaseUrl('http', 'a.example.com', 8090)).toBe('http://a.example.com:8090');
    expect(formatBaseUrl('http', 'fd00::10', 8090)).toBe('http://[fd00::10]:8090');
  });
});

describe('routeBaseUrl', () => {
  it('uses the admitted host from status, https when the Route terminates TLS', () => {
    const r = route(
      { host: 'spec.apps.example.com', tls: { termination: 'edge' } },
      {
        ingress: [
          { host: 'pending.apps.example.com', conditions: [{ type: 'Admitted', status: 'False' }] },
          { host: 'api.apps.example.com', conditions: [{ type: 'Admitted', status: 'True' }] },
        ],
      },
    );
    expect(routeBaseUrl(r)).toBe('https://api.apps.example.com');
  });

  it('falls back to the first status host, then spec.host; http without tls', () => {
    expect(routeBaseUrl(route({ host: 'spec.example.com' }, { ingress: [{ host: 'st.example.com' }] }))).toBe(
      'http://st.example.com',
    );
    expect(routeBaseUrl(route({ host: 'spec.example.com', tls: null }))).toBe('http://spec.example.com');
  });

  it('has no URL while the Route has no host', () => {
    expect(routeBaseUrl(route({}))).toBeUndefined();
    expect(routeBaseUrl(route({ host: '' }, { ingress: [] }))).toBeUndefined();
  });
});

describe('ingressBaseUrl', () => {
  it("takes the first rule's host; https only when a tls entry lists it", () => {
    const rules = [{}, { host: 'aio.example.com' }, { host: 'other.example.com' }];
    expect(ingressBaseUrl(ingress({ rules }))).toBe('http://aio.example.com');
    expect(ingressBaseUrl(ingress({ rules, tls: [{ hosts: ['other.example.com'] }] }))).toBe(
      'http://aio.example.com',
    );
    expect(ingressBaseUrl(ingress({ rules, tls: [{ hosts: ['aio.example.com'] }] }))).toBe(
      'https://aio.example.com',
    );
    expect(ingressBaseUrl(ingress({ rules, tls: [{ hosts: ['*.example.com'] }] }))).toBe(
      'https://aio.example.com',
    );
    expect(ingressBaseUrl(ingress({ rules, tls: [{ hosts: ['*.com'] }] }))).toBe('http://aio.example.com');
  });

  it('skips wildcard hosts; with no host, uses the published load-balancer address', () => {
    const lb = { loadBalancer: { ingress: [{ ip: '192.0.2.7' }] } };
    expect(ingressBaseUrl(ingress({ rules: [{ host: '*.example.com' }] }, lb))).toBe('http://192.0.2.7');
    expect(ingressBaseUrl(ingress({ rules: [{}] }))).toBeUndefined();
  });
});

describe('serviceAddress', () => {
  const ports = [
    { name: 'metrics', port: 8080 },
    { name: 'api', port: 8090, nodePort: 31090 },
  ];

  it("uses a LoadBalancer's published address and the api port", () => {
    const ip = service(
      { type: 'LoadBalancer', ports },
      { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } },
    );
    expect(serviceAddress(ip)).toEqual({ url: 'http://192.0.2.10:8090', reach: 'load-balancer' });
    const host = service(
      { type: 'LoadBalancer', ports: [{ port: 443 }] },
      { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } },
    );
    expect(serviceAddress(host)?.url).toBe('https://lb.example.com');
  });

  it('uses the cluster DNS name for ClusterIP and a LoadBalancer without an address yet', () => {
    expect(serviceAddress(service({ ports }))).toEqual({
      url: 'http://agent-install-operator-api.aio.svc:8090',
      reach: 'cluster',
    });
    expect(serviceAddress(service({ type: 'LoadBalancer', ports }, { loadBalancer: {} }))?.url).toBe(
      'http://agent-install-operator-api.aio.svc:8090',
    );
  });

  it('says that a NodePort needs SERVICE_BASE_URL for hosts outside the cluster', () => {
    const out = serviceAddress(service({ type: 'NodePort', ports }));
    expect(out?.reach).toBe('cluster');
    expect(out?.hint).toContain('31090');
    expect(out?.hint).toContain('SERVICE_BASE_URL');
  });

  it('has no URL for ExternalName or a Service without ports', () => {
    expect(serviceAddress(service({ type: 'ExternalName', ports }))).toBeUndefined();
    expect(serviceAddress(service({ ports: [] }))).toBeUndefined();
  });
});

describe('discoverBaseUrl', () => {
  const r = route({ host: 'r.example.com', tls: { termination: 'edge' } });
  const i = ingress({ rules: [{ host: 'i.example.com' }] });
  const s = service({ ports: [{ name: 'api', port: 8090 }] });

  it('prefers the Route, then the Ingress, then the Service', () => {
    expect(discoverBaseUrl({ route: r, ingress: i, service: s })).toMatchObject({
      url: 'https://r.example.com',
      source: 'Route',
    });
    expect(discoverBaseUrl({ ingress: i, service: s })).toMatchObject({
      url: 'http://i.example.com',
      source: 'Ingress',
    });
    expect(discoverBaseUrl({ service: s })).toMatchObject({
      url: 'http://agent-install-operator-api.aio.svc:8090',
      source: 'Service',
    });
    expect(discoverBaseUrl({})).toBeUndefined();
  });

  it('passes over an object that yields no URL', () => {
    expect(discoverBaseUrl({ route: route({}), ingress: i })?.source).toBe('Ingress');
  });
});

describe('effectiveUrls', () => {
  const listen = 'http://127.0.0.1:8090';
  const discovered = 'https://aio.example.com';

  it('lets explicit settings win, then the discovered address, then the listen address', () => {
    expect(effectiveUrls({ service: 'http://s', image: 'http://i', discovered, listen })).toEqual({
      serviceBaseUrl: 'http://s',
      imageServiceBaseUrl: 'http://i',
    });
    expect(effectiveUrls({ service: 'http://s', image: undefined, discovered, listen })).toEqual({
      serviceBaseUrl: 'http://s',
      imageServiceBaseUrl: 'http://s',
    });
    expect(effectiveUrls({ service: undefined, image: 'http://i', discovered, listen })).toEqual({
      serviceBaseUrl: discovered,
      imageServiceBaseUrl: 'http://i',
    });
    expect(effectiveUrls({ service: undefined, image: undefined, discovered, listen })).toEqual({
      serviceBaseUrl: discovered,
      imageServiceBaseUrl: discovered,
    });
    expect(effectiveUrls({ service: undefined, image: undefined, discovered: undefined, listen })).toEqual({
      serviceBaseUrl: listen,
      imageServiceBaseUrl: listen,
    });
  });
});

describe('ServiceUrlState', () => {
  it('tells listeners only about changes of the effective URLs', () => {
    const state = new ServiceUrlState({
      service: undefined,
      image: undefined,
      discovered: undefined,
      listen: 'http://127.0.0.1:8090',
    });
    const seen: string[] = [];
    state.onChange((now, before) => seen.push(`${before.serviceBaseUrl} -> ${now.serviceBaseUrl}`));
    expect(state.update({ discovered: 'http://a.example.com' })).toBe(true);
    expect(state.update({ discovered: 'http://a.example.com' })).toBe(false);
    expect(state.update({ listen: 'http://127.0.0.1:9000' })).toBe(false); // hidden by the discovered one
    expect(state.update({ discovered: undefined })).toBe(true);
    expect(state.current.serviceBaseUrl).toBe('http://127.0.0.1:9000');
    expect(seen).toEqual([
      'http://127.0.0.1:8090 -> http://a.example.com',
      'http://a.example.com -> http://127.0.0.1:9000',
    ]);
  });

  it('never moves while SERVICE_BASE_URL and IMAGE_SERVICE_BASE_URL are set', () => {
    const state = new ServiceUrlState({
      service: 'http://s',
      image: 'http://i',
      discovered: undefined,
      listen: 'http://127.0.0.1:8090',
    });
    expect(state.update({ discovered: 'http://a.example.com' })).toBe(false);
    expect(state.current).toEqual({ serviceBaseUrl: 'http://s', imageServiceBaseUrl: 'http://i' });
  });
});

describe('settings', () => {
  it('keeps SERVICE_BASE_URL unset unless given, and names the objects to discover', () => {
    const unset = loadOperatorConfig([], { POD_NAMESPACE: 'aio' }).operator;
    expect(unset.serviceBaseUrl).toBeUndefined();
    expect(unset.imageServiceBaseUrl).toBeUndefined();
    expect(listenBaseUrl(unset)).toBe('http://127.0.0.1:8090');
    expect(
      baseUrlCacheOptions(unset, 'aio').map((o) => [o.resource.kind, o.namespace, o.fieldSelector]),
    ).toEqual([
      ['Route', 'aio', 'metadata.name=agent-install-operator-api'],
      ['Ingress', 'aio', 'metadata.name=agent-install-operator-api'],
      ['Service', 'aio', 'metadata.name=agent-install-operator-api'],
    ]);

    const named = loadOperatorConfig(['--api-ingress-name', 'hosts'], { API_ROUTE_NAME: 'r' }).operator;
    expect(baseUrlCacheOptions(named, 'aio').map((o) => o.fieldSelector)).toEqual([
      'metadata.name=r',
      'metadata.name=hosts',
      'metadata.name=agent-install-operator-api',
    ]);

    const explicit = loadOperatorConfig([], { SERVICE_BASE_URL: 'https://aio.example.com/' }).operator;
    expect(explicit.serviceBaseUrl).toBe('https://aio.example.com');
    expect(baseUrlCacheOptions(explicit, 'aio')).toEqual([]);
  });
});
