// NMStateConfig (nmstateconfigs.agent-install.openshift.io/v1beta1): static network
// configuration for one host, matched by MAC address.

import { z } from 'zod';
import {
  AGENT_INSTALL_API_VERSION,
  AGENT_INSTALL_GROUP,
  AGENT_INSTALL_VERSION,
  doc,
  freeFormObject,
  resourceSchemaWithoutStatus,
} from './common.ts';

export const NMSTATECONFIG_GROUP = AGENT_INSTALL_GROUP;
export const NMSTATECONFIG_VERSION = AGENT_INSTALL_VERSION;
export const NMSTATECONFIG_API_VERSION = AGENT_INSTALL_API_VERSION;
export const NMSTATECONFIG_KIND = 'NMStateConfig';
export const NMSTATECONFIG_PLURAL = 'nmstateconfigs';

/** Six colon-separated hex pairs. */
export const MAC_ADDRESS_PATTERN = /^([0-9A-Fa-f]{2}[:]){5}([0-9A-Fa-f]{2})$/;

export const nmStateInterfaceSchema = z.looseObject({
  name: doc(z.string(), 'NIC name used in the nmstate config; renamed to the real device with this MAC.'),
  macAddress: doc(z.string().regex(MAC_ADDRESS_PATTERN), 'MAC address of the NIC on the host.'),
});
export type NMStateInterface = z.infer<typeof nmStateInterfaceSchema>;

export const nmStateConfigSpecSchema = z.looseObject({
  config: doc(freeFormObject(), 'nmstate configuration, sent verbatim (as YAML) to the host.').optional(),
  interfaces: doc(
    z.array(nmStateInterfaceSchema).min(1),
    'NIC name to MAC address map; any listed MAC identifies the host.',
  ).optional(),
});
export type NMStateConfigSpec = z.infer<typeof nmStateConfigSpecSchema>;

export const nmStateConfigSchema = resourceSchemaWithoutStatus({
  description:
    'NMStateConfig holds the static network configuration of a host. InfraEnvs select it by label.',
  spec: nmStateConfigSpecSchema,
  specRequired: false,
});
export type NMStateConfig = z.infer<typeof nmStateConfigSchema>;
