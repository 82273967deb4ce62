// ClusterImageSet (clusterimagesets.hive.openshift.io/v1, cluster-scoped), owned by Hive.

import { z } from 'zod';
import { crd, doc, HIVE_API_VERSION, HIVE_GROUP, HIVE_VERSION, objectMetaSchema } from './common.ts';

export const CLUSTERIMAGESET_GROUP = HIVE_GROUP;
export const CLUSTERIMAGESET_VERSION = HIVE_VERSION;
export const CLUSTERIMAGESET_API_VERSION = HIVE_API_VERSION;
export const CLUSTERIMAGESET_KIND = 'ClusterImageSet';
export const CLUSTERIMAGESET_PLURAL = 'clusterimagesets';

export const clusterImageSetSpecSchema = z.looseObject({
  releaseImage: doc(z.string(), 'OpenShift release image.'),
});
export type ClusterImageSetSpec = z.infer<typeof clusterImageSetSpecSchema>;

export const clusterImageSetStatusSchema = crd(z.looseObject({}), { preserveUnknownFields: true });

export const clusterImageSetSchema = doc(
  z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema,
    spec: clusterImageSetSpecSchema,
    status: clusterImageSetStatusSchema.optional(),
  }),
  'ClusterImageSet (Hive). Stand-in schema with the fields the operator uses.',
);
export type ClusterImageSet = z.infer<typeof clusterImageSetSchema>;
