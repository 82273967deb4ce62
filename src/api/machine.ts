// Machine and MachineSet (machine.openshift.io/v1beta1), owned by OpenShift's Machine API on a
// spoke cluster. This operator touches them there only through the spoke's kubeconfig: the BMAC
// reads a master Machine's image and creates a day-2 host's Machine (kubeapi.md §3.6 step 10), and
// cleanup after a deleted or unbound Agent annotates, scales and deletes them (§3.4.1). The
// stand-in CRDs exist so tests can play the spoke. Only the fields used here are described;
// everything else is preserved.

import { z } from 'zod';
import { doc, int32, objectMetaSchema } from './common.ts';

export const MACHINE_GROUP = 'machine.openshift.io';
export const MACHINE_VERSION = 'v1beta1';
export const MACHINE_API_VERSION = `${MACHINE_GROUP}/${MACHINE_VERSION}`;
export const MACHINE_KIND = 'Machine';
export const MACHINE_PLURAL = 'machines';
export const MACHINESET_KIND = 'MachineSet';
export const MACHINESET_PLURAL = 'machinesets';

/** spec.providerSpec.value of a bare-metal Machine (the fields the BMAC reads and writes). */
export const bareMetalMachineProviderSpecSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  image: doc(
    z.looseObject({ checksum: z.string().optional(), url: z.string().optional() }),
    'The image the host is provisioned with.',
  ).optional(),
});
export type BareMetalMachineProviderSpec = z.infer<typeof bareMetalMachineProviderSpecSchema>;

/** providerSpec.value apiVersion and kind of bare-metal Machines. */
export const BAREMETAL_PROVIDER_SPEC_API_VERSION = 'baremetal.cluster.k8s.io/v1alpha1';
export const BAREMETAL_PROVIDER_SPEC_KIND = 'BareMetalMachineProviderSpec';

export const machineSpecSchema = z.looseObject({
  providerID: z.string().optional(),
  providerSpec: doc(
    z.looseObject({ value: bareMetalMachineProviderSpecSchema.optional() }),
    'Provider-specific configuration.',
  ).optional(),
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
