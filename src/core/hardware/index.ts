// Hardware requirements per version and role, disk eligibility and installation-disk choice.
export * from './disks.ts';
export * from './host-requirements.ts';
export * from './installation-disk.ts';
export * from './inventory-update.ts';
export * from './requirements.ts';
export * from './units.ts';
