// The discovery path's controller: the InfraEnv reconciler (controller.ts). Its part of the REST
// backend and the image routes live in the host API (src/server/infraenvs/); what both share — the
// inputs, the discovery ignition and the image services — in src/records/infraenvs/.
export { register } from './controller.ts';
