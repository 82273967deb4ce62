// Registers every controller with the manager. Each controller module exports `register(ctx)`.
import type { OperatorContext } from '../records/context.ts';
import { register as registerAgent } from './agent/index.ts';
import { register as registerAgentClassification } from './agentclassification/index.ts';
import { register as registerAgentLabel } from './agentlabel/index.ts';
import { register as registerAgentServiceConfig } from './agentserviceconfig/index.ts';
import { register as registerBmac } from './bmac/index.ts';
import { register as registerCluster } from './cluster/index.ts';
import { register as registerInfraEnv } from './infraenv/index.ts';
import { register as registerPreprovisioningImage } from './ppi/index.ts';

export type ControllerRegistrar = (ctx: OperatorContext) => void;

export const CONTROLLERS: readonly ControllerRegistrar[] = [
  registerAgent,
  registerAgentClassification,
  registerAgentLabel,
  registerAgentServiceConfig,
  registerBmac,
  registerCluster,
  registerInfraEnv,
  registerPreprovisioningImage,
];

export function registerControllers(ctx: OperatorContext): void {
  for (const register of CONTROLLERS) register(ctx);
}
