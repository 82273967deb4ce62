// The assisted-installer `event` model and the filter of GET /v2/events: written by the operator's
// event writer (src/records/events.ts), listed and served by the host API.

export const EVENT_SEVERITIES = ['info', 'warning', 'error', 'critical'] as const;
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];
export const EVENT_CATEGORIES = ['user', 'metrics'] as const;
export type EventCategory = (typeof EVENT_CATEGORIES)[number];

/** The `event` model. */
export interface ApiEvent {
  readonly name?: string;
  readonly cluster_id?: string | null;
  readonly host_id?: string | null;
  readonly infra_env_id?: string | null;
  readonly severity: EventSeverity;
  readonly category?: EventCategory;
  readonly message: string;
  /** RFC 3339 date-time. */
  readonly event_time: string;
  readonly request_id?: string;
  /** JSON string. */
  readonly props?: string;
}

export interface EventFilter {
  readonly clusterId?: string;
  readonly hostId?: string;
  readonly infraEnvId?: string;
  readonly hostIds?: readonly string[];
  readonly severities?: readonly EventSeverity[];
  readonly categories?: readonly EventCategory[];
  /** Substring filter on the message. */
  readonly message?: string;
  readonly limit?: number;
  readonly offset?: number;
  readonly order?: 'ascending' | 'descending';
  readonly clusterLevel?: boolean;
  readonly deletedHosts?: boolean;
}

export interface EventList {
  readonly events: readonly ApiEvent[];
  /** `Event-Count` header: matches before limit/offset. */
  readonly total?: number;
  /** `Severity-Count-<Severity>` headers. */
  readonly severityCounts?: Partial<Record<EventSeverity, number>>;
}
