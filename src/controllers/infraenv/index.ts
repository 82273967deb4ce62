// The discovery path: the InfraEnv controller, its part of the REST backend and the image
// service routes. See controller.ts, backend.ts, image-routes.ts and services.ts (how the
// LocalAuth reaches the controller).
export { type InfraEnvBackend, type InfraEnvBackendDeps, infraEnvBackend } from './backend.ts';
export { register } from './controller.ts';
export { mountImageRoutes } from './image-routes.ts';
export { type ImageServices, imageServicesOf, setAuth } from './services.ts';
