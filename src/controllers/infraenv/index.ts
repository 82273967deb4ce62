// The discovery path: the InfraEnv controller, its part of the REST backend and the image
// service routes. See controller.ts, backend.ts, image-routes.ts and services.ts (how the
// LocalAuth reaches the controller).

export { type ImageServices, imageServicesOf, setAuth } from '../../records/infraenvs/services.ts';
export {
  type InfraEnvBackend,
  type InfraEnvBackendDeps,
  infraEnvBackend,
} from '../../server/infraenvs/backend.ts';
export { mountImageRoutes } from '../../server/infraenvs/image-routes.ts';
export { register } from './controller.ts';
