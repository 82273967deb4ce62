// Label syntax lives in the core (the Agent record validates node labels with it too).
export { aggregateErrors, labelKeyErrors, labelValueErrors } from '../core/labels.ts';
