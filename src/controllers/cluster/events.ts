// Cluster events of the installer core (status changes, installation started/failed/completed,
// preparation failures): handed to the operator's event store (../events.ts), which keeps each as
// a core/v1 Event on the CR it concerns and lists them for GET /v2/events. The sink is a parameter
// so tests can collect them.

import type { Agent, AgentClusterInstall } from '../../api/index.ts';
import type { SmEvent } from '../../core/statemachine/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { operatorEventsFor } from '../../records/events.ts';

export type ClusterEventSink = (
  events: readonly SmEvent[],
  on: { aci: AgentClusterInstall; agents: readonly Agent[] },
) => void;

export function operatorEventSink(ctx: OperatorContext): ClusterEventSink {
  return (events) => operatorEventsFor(ctx).recordCore(events);
}
