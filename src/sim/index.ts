// agent-install-sim: simulated discovery hosts for e2e tests, demos and load runs.
//
//   const fleet = await startFleet({
//     media: { isoUrl: infraEnv.status.isoDownloadURL },   // or { ignitionUrl }
//     hosts: 5,                                            // 3 masters + 2 workers by default
//     speed: 20,                                           // simulated time ×20
//     overrides: { serviceUrl: 'http://127.0.0.1:8090' },  // when the media's URL is not reachable
//     onEvent: (ev) => log(ev),
//   });
//   await fleet.waitFor((f) => f.stats.registered === 5, { timeoutMs: 60_000 });
//   …approve the Agents, start the installation…
//   await fleet.waitFor((f) => f.stats.clustersCompleted === 1, { timeoutMs: 600_000 });
//   await fleet.stop();
export {
  type BootOptions,
  type BootResult,
  boot,
  bootFromIgnitionUrl,
  bootFromIso,
  type DiscoveryConfig,
  parseDiscoveryIgnition,
} from './boot.ts';
export { Fleet, type FleetOptions, profileFor, startFleet } from './fleet.ts';
export { type HostPhase, runHost, SimHost, type SimHostOptions } from './host.ts';
export type { WireExchange } from './http.ts';
export type { InstallPace } from './install-task.ts';
export { INSTALLER_STAGES } from './installer.ts';
export { type Metal3Event, SimMetal3, type SimMetal3Options } from './metal3.ts';
export { SimNetwork } from './network.ts';
export {
  isProfileName,
  type MachineOptions,
  machineNetworkCapacity,
  PROFILE_NAMES,
  type ProfileName,
  type SimulatedMachine,
  simulatedMachine,
} from './profiles.ts';
export { Scheduler, type SimTask } from './scheduler.ts';
export { emptyStats, formatStats, type SimEvent, type SimStats } from './stats.ts';
export type { StepBehaviour } from './steps.ts';
