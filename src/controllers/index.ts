// Registers every controller with the manager. Each controller module exports `register(ctx)`.
import type { OperatorContext } from '../operator/context.ts';

export type ControllerRegistrar = (ctx: OperatorContext) => void;

export const CONTROLLERS: readonly ControllerRegistrar[] = [];

export function registerControllers(ctx: OperatorContext): void {
  for (const register of CONTROLLERS) register(ctx);
}
