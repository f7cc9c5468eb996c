import { describe, expect, it } from 'vitest';
import { restRoutes } from '../api/rest-routes';
import { appRouter } from '../api/router';
import { apiRouteLabeller, methodLabel } from './api-route';

const routeOf = apiRouteLabeller(restRoutes, Object.keys(appRouter._def.procedures));

describe('API route labels', () => {
  it('names a REST path by its template: ids and host names become placeholders', () => {
    expect(routeOf('/v1/stats')).toBe('/v1/stats');
    expect(routeOf('/v1/hosts/www.example.com')).toBe('/v1/hosts/:host');
    expect(routeOf('/v1/hosts/a.test/block-patterns')).toBe('/v1/hosts/:host/block-patterns');
    expect(routeOf('/v1/agents/agent-7/release-leases')).toBe('/v1/agents/:id/release-leases');
    expect(routeOf('/v1/users/42')).toBe('/v1/users/:id');
  });

  it('names a tRPC call by its procedure, and keeps the label set bounded', () => {
    expect(routeOf('/trpc/stats.get')).toBe('/trpc/stats.get');
    expect(routeOf('/trpc/stats.get,hosts.list')).toBe('/trpc/(batch)');
    expect(routeOf('/trpc/no.such.procedure')).toBe('/trpc/(unknown)');
    expect(routeOf('/v1/whatever/you/like')).toBe('(unmatched)');
    expect(routeOf('/healthz')).toBe('/healthz');
  });

  it('reports known methods as they are, anything else as OTHER', () => {
    expect(methodLabel('get')).toBe('GET');
    expect(methodLabel('DELETE')).toBe('DELETE');
    expect(methodLabel('PROPFIND')).toBe('OTHER');
    expect(methodLabel(undefined)).toBe('OTHER');
  });
});
