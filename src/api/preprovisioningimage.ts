// PreprovisioningImage (preprovisioningimages.metal3.io/v1alpha1), owned by metal3. Only the
// fields this operator reads or writes are described; everything else is preserved.

import { z } from 'zod';
import {
  doc,
  METAL3_API_VERSION,
  METAL3_GROUP,
  METAL3_VERSION,
  metaV1ConditionSchema,
  objectMetaSchema,
} from './common.ts';

export const PREPROVISIONINGIMAGE_GROUP = METAL3_GROUP;
export const PREPROVISIONINGIMAGE_VERSION = METAL3_VERSION;
export const PREPROVISIONINGIMAGE_API_VERSION = METAL3_API_VERSION;
export const PREPROVISIONINGIMAGE_KIND = 'PreprovisioningImage';
export const PREPROVISIONINGIMAGE_PLURAL = 'preprovisioningimages';

/** Formats this operator can serve, in order of preference. */
export const PPI_SUPPORTED_FORMATS = ['iso', 'initrd'] as const;

export const preprovisioningImageSpecSchema = z.looseObject({
  architecture: doc(z.string(), 'CPU architecture of the host.').optional(),
  acceptFormats: doc(z.array(z.string()), 'Image formats the consumer accepts.').optional(),
  networkDataName: z.string().optional(),
});
export type PreprovisioningImageSpec = z.infer<typeof preprovisioningImageSpecSchema>;

export const preprovisioningImageStatusSchema = z.looseObject({
  imageUrl: z.string().optional(),
  kernelUrl: z.string().optional(),
  extraKernelParams: z.string().optional(),
  format: z.string().optional(),
  architecture: z.string().optional(),
  conditions: z.array(metaV1ConditionSchema).optional(),
});
export type PreprovisioningImageStatus = z.infer<typeof preprovisioningImageStatusSchema>;

export const preprovisioningImageSchema = doc(
  z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema,
    spec: preprovisioningImageSpecSchema.optional(),
    status: preprovisioningImageStatusSchema.optional(),
  }),
  'PreprovisioningImage (metal3). Stand-in schema with the fields the operator uses.',
);
export type PreprovisioningImage = z.infer<typeof preprovisioningImageSchema>;
