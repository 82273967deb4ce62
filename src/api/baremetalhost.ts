// BareMetalHost (baremetalhosts.metal3.io/v1alpha1), owned by metal3. Only the fields this
// operator reads or writes are described; everything else is preserved.

import { z } from 'zod';
import { doc, int, METAL3_API_VERSION, METAL3_GROUP, METAL3_VERSION, objectMetaSchema } from './common.ts';

export const BAREMETALHOST_GROUP = METAL3_GROUP;
export const BAREMETALHOST_VERSION = METAL3_VERSION;
export const BAREMETALHOST_API_VERSION = METAL3_API_VERSION;
export const BAREMETALHOST_KIND = 'BareMetalHost';
export const BAREMETALHOST_PLURAL = 'baremetalhosts';

/** Provisioning states the operator reacts to. */
export const BMH_PROVISIONING_STATES = [
  '',
  'ready',
  'available',
  'provisioned',
  'deprovisioning',
  'powering off before delete',
  'deleting',
] as const;

/** Value written to spec.customDeploy.method in the converged flow. */
export const CUSTOM_DEPLOY_METHOD_ASSISTED = 'start_assisted_install';
/** spec.automatedCleaningMode values: non-converged hosts are never cleaned; the converged delete
 * flow wipes disk metadata. */
export const BMH_CLEANING_DISABLED = 'disabled';
export const BMH_CLEANING_METADATA = 'metadata';
/** Value written to spec.image.diskFormat. */
export const BMH_IMAGE_DISK_FORMAT_LIVE_ISO = 'live-iso';

export const rootDeviceHintsSchema = z.looseObject({
  deviceName: z.string().optional(),
  hctl: z.string().optional(),
  model: z.string().optional(),
  vendor: z.string().optional(),
  serialNumber: z.string().optional(),
  minSizeGigabytes: int().optional(),
  wwn: z.string().optional(),
  wwnWithExtension: z.string().optional(),
  wwnVendorExtension: z.string().optional(),
  rotational: z.boolean().optional(),
});
export type RootDeviceHints = z.infer<typeof rootDeviceHintsSchema>;

export const bmcDetailsSchema = z.looseObject({
  address: doc(z.string(), 'BMC URL.'),
  credentialsName: doc(z.string(), 'Secret with the BMC username and password.'),
  disableCertificateVerification: z.boolean().optional(),
});
export type BmcDetails = z.infer<typeof bmcDetailsSchema>;

export const bmhImageSchema = z.looseObject({
  url: doc(z.string(), 'URL of the image to boot.'),
  diskFormat: z.string().optional(),
  checksum: z.string().optional(),
  checksumType: z.string().optional(),
  format: z.string().optional(),
});
export type BmhImage = z.infer<typeof bmhImageSchema>;

export const customDeploySchema = z.looseObject({
  method: z.string(),
});

export const bareMetalHostSpecSchema = z.looseObject({
  bootMACAddress: doc(z.string(), 'MAC address of the NIC the host boots from.').optional(),
  rootDeviceHints: doc(rootDeviceHintsSchema, 'Hints used to pick the installation disk.').optional(),
  bmc: doc(bmcDetailsSchema, 'How to reach the BMC.').optional(),
  image: doc(bmhImageSchema, 'Image to boot.').optional(),
  online: doc(z.boolean(), 'Whether the host should be powered on.'),
  automatedCleaningMode: z.string().optional(),
  customDeploy: customDeploySchema.optional(),
  consumerRef: doc(
    z.looseObject({
      apiVersion: z.string().optional(),
      kind: z.string().optional(),
      name: z.string().optional(),
      namespace: z.string().optional(),
    }),
    'The object using the host (a spoke Machine).',
  ).optional(),
});
export type BareMetalHostSpec = z.infer<typeof bareMetalHostSpecSchema>;

export const bareMetalHostStatusSchema = z.looseObject({
  operationalStatus: z.string().optional(),
  provisioning: z
    .looseObject({
      state: z.string().optional(),
      ID: z.string().optional(),
    })
    .optional(),
  hardware: z
    .looseObject({
      hostname: z.string().optional(),
    })
    .optional(),
  errorMessage: z.string().optional(),
  poweredOn: z.boolean().optional(),
});
export type BareMetalHostStatus = z.infer<typeof bareMetalHostStatusSchema>;

export const bareMetalHostSchema = doc(
  z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema,
    spec: bareMetalHostSpecSchema,
    status: bareMetalHostStatusSchema.optional(),
  }),
  'BareMetalHost (metal3). Stand-in schema with the fields the operator uses.',
);
export type BareMetalHost = z.infer<typeof bareMetalHostSchema>;
