// MachineConfigPool (machineconfiguration.openshift.io/v1), owned by the Machine Config Operator on
// a spoke cluster. This operator touches one only through the spoke's kubeconfig: while a day-2
// host that joins a custom pool is installing, the spoke's `worker` pool is paused so the Machine
// Config Operator does not roll its workers meanwhile (kubeapi.md §3.1.10). The stand-in CRD exists
// so tests can play the spoke; the hub never needs it. Only spec.paused (and two status counters) are
// described; everything else is preserved.

import { z } from 'zod';
import { doc, int32, objectMetaSchema } from './common.ts';

export const MACHINECONFIGPOOL_GROUP = 'machineconfiguration.openshift.io';
export const MACHINECONFIGPOOL_VERSION = 'v1';
export const MACHINECONFIGPOOL_KIND = 'MachineConfigPool';
export const MACHINECONFIGPOOL_PLURAL = 'machineconfigpools';
/** The pool paused while day-2 hosts of custom pools install. */
export const WORKER_MACHINECONFIGPOOL = 'worker';

export const machineConfigPoolSpecSchema = z.looseObject({
  paused: doc(z.boolean(), 'Stops the pool from applying new MachineConfigs to its nodes.').optional(),
});
export type MachineConfigPoolSpec = z.infer<typeof machineConfigPoolSpecSchema>;

export const machineConfigPoolStatusSchema = z.looseObject({
  machineCount: int32().optional(),
  updatedMachineCount: int32().optional(),
});
export type MachineConfigPoolStatus = z.infer<typeof machineConfigPoolStatusSchema>;

export const machineConfigPoolSchema = doc(
  z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema,
    spec: machineConfigPoolSpecSchema.optional(),
    status: machineConfigPoolStatusSchema.optional(),
  }),
  'MachineConfigPool (Machine Config Operator). Stand-in schema with the fields the operator uses.',
);
export type MachineConfigPool = z.infer<typeof machineConfigPoolSchema>;
