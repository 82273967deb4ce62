// Events: posted by the in-cluster controller (v2TriggerEvent) and listed through the signed
// debugInfo.eventsURL of each CR (kubeapi.md §3.11).

import { type ApiRoute, defineRoute, errorReply, fromOutcome, refusal } from './api-route.ts';
import {
  type ApiEvent,
  EVENT_CATEGORIES,
  EVENT_SEVERITIES,
  type EventFilter,
  type EventList,
  type EventSeverity,
} from './backend.ts';
import { eventSchema } from './schemas.ts';

const triggerEvent = defineRoute({
  method: 'POST',
  path: '/v2/events',
  bodyKind: 'event',
  auth: { agent: true },
  async handle(ctx) {
    const body = await ctx.body(eventSchema, 'event');
    if (!body.ok) return errorReply(400, body.message);
    const raw = body.value;
    // The ids are only known now: the event may only concern records the token opens.
    const allowed = await ctx.authorize({
      ...(raw.infra_env_id ? { infraEnvId: raw.infra_env_id } : {}),
      ...(raw.cluster_id ? { clusterId: raw.cluster_id } : {}),
      ...(raw.host_id ? { hostId: raw.host_id } : {}),
    });
    if (!allowed.ok) return refusal(allowed);
    const event: ApiEvent = Object.fromEntries(
      Object.entries(raw).filter(([, value]) => value !== undefined),
    ) as unknown as ApiEvent;
    const outcome = await ctx.deps.backend.triggerEvent(ctx.call, { event });
    return fromOutcome(outcome, () => ({ kind: 'empty', status: 201 }));
  },
});

function capitalised(severity: EventSeverity): string {
  return severity[0]!.toUpperCase() + severity.slice(1);
}

/** Event-Count and Severity-Count-<Severity>, spelled as upstream sends them. */
function listHeaders(list: EventList): Record<string, string> {
  const headers: Record<string, string> = {};
  if (list.total !== undefined) headers['Event-Count'] = String(list.total);
  for (const severity of EVENT_SEVERITIES) {
    const count = list.severityCounts?.[severity];
    if (count !== undefined) headers[`Severity-Count-${capitalised(severity)}`] = String(count);
  }
  return headers;
}

/**
 * The backend must apply every filter together (AND): the token was checked against the
 * cluster_id / infra_env_id / host_id given, and the other filters may only narrow the list.
 */
const listEvents = defineRoute<EventFilter>({
  method: 'GET',
  path: '/v2/events',
  auth: { url: ['events'] },
  query: (q) => {
    const filter: Record<string, unknown> = {
      clusterId: q.uuid('cluster_id'),
      hostId: q.uuid('host_id'),
      infraEnvId: q.uuid('infra_env_id'),
      hostIds: q.uuidList('host_ids'),
      severities: q.list('severities', EVENT_SEVERITIES),
      categories: q.list('categories', EVENT_CATEGORIES),
      message: q.string('message'),
      limit: q.int('limit'),
      offset: q.int('offset'),
      order: q.oneOf('order', ['ascending', 'descending'] as const),
      clusterLevel: q.bool('cluster_level'),
      deletedHosts: q.bool('deleted_hosts'),
    };
    return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as EventFilter;
  },
  target: (_params, filter) => ({
    ...(filter.clusterId ? { clusterId: filter.clusterId } : {}),
    ...(filter.infraEnvId ? { infraEnvId: filter.infraEnvId } : {}),
    ...(filter.hostId ? { hostId: filter.hostId } : {}),
  }),
  async handle(ctx) {
    const outcome = await ctx.deps.backend.listEvents(ctx.call, ctx.query);
    return fromOutcome(outcome, (list) => ({
      kind: 'json',
      status: 200,
      body: list.events,
      headers: listHeaders(list),
    }));
  },
});

export const EVENT_ROUTES: readonly ApiRoute<unknown>[] = [triggerEvent, listEvents];
