// Machine and MachineSet (machine.openshift.io/v1beta1), owned by OpenShift's Machine API on a
// spoke cluster. This operator only annotates, scales and deletes them there, through the spoke's
// kubeconfig, when it cleans up after a deleted or unbound Agent (kubeapi.md §3.4.1); the stand-in
// CRDs exist so tests can play the spoke. Only the fields read here are described; everything else
// is preserved.

import { z } from 'zod';
import { doc, int32, objectMetaSchema } from './common.ts';

export const MACHINE_GROUP = 'machine.openshift.io';
export const MACHINE_VERSION = 'v1beta1';
export const MACHINE_API_VERSION = `${MACHINE_GROUP}/${MACHINE_VERSION}`;
export const MACHINE_KIND = 'Machine';
export const MACHINE_PLURAL = 'machines';
export const MACHINESET_KIND = 'MachineSet';
export const MACHINESET_PLURAL = 'machinesets';

export const machineSpecSchema = z.looseObject({
  providerID: z.string().optional(),
});
export type MachineSpec = z.infer<typeof machineSpecSchema>;

export const machineStatusSchema = z.looseObject({
  nodeRef: doc(
    z.looseObject({ kind: z.string().optional(), name: z.string().optional(), uid: z.string().optional() }),
    'The Node of this Machine.',
  ).optional(),
  phase: z.string().optional(),
});
export type MachineStatus = z.infer<typeof machineStatusSchema>;

export const machineSchema = doc(
  z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema,
    spec: machineSpecSchema.optional(),
    status: machineStatusSchema.optional(),
  }),
  'Machine (OpenShift Machine API). Stand-in schema with the fields the operator uses.',
);
export type Machine = z.infer<typeof machineSchema>;

export const machineSetSpecSchema = z.looseObject({
  replicas: doc(int32(), 'Desired number of Machines.').optional(),
});
export type MachineSetSpec = z.infer<typeof machineSetSpecSchema>;

export const machineSetStatusSchema = z.looseObject({
  replicas: int32().optional(),
  readyReplicas: int32().optional(),
});
export type MachineSetStatus = z.infer<typeof machineSetStatusSchema>;

export const machineSetSchema = doc(
  z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema,
    spec: machineSetSpecSchema.optional(),
    status: machineSetStatusSchema.optional(),
  }),
  'MachineSet (OpenShift Machine API). Stand-in schema with the fields the operator uses.',
);
export type MachineSet = z.infer<typeof machineSetSchema>;
