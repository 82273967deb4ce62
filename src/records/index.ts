// Pure conversions between the operator's CRs and the installer core's records
// (docs/design/records.md "Conversions"). No I/O and no Kubernetes client: callers read the
// objects, pass the time in, and write the returned status.

export * from './aci-conditions.ts';
export * from './aci-status.ts';
export * from './agent.ts';
export * from './agent-conditions.ts';
export * from './agent-spec.ts';
export * from './cluster.ts';
export * from './cluster-annotations.ts';
export * from './cluster-inputs.ts';
export * from './cluster-spec.ts';
export * from './conditions.ts';
export * from './infraenv.ts';
export * from './inventory.ts';
export * from './release.ts';
export * from './time.ts';
export * from './urls.ts';
export * from './validation-messages.ts';
