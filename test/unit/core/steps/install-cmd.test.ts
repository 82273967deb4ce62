import { describe, expect, it } from 'vitest';
import type { Disk } from '../../../../src/core/inventory.ts';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import {
  buildInstallCmdRequest,
  type InstallCmdRequest,
  installerNoProxy,
  mustGatherImageArg,
  type StepsOptions,
} from '../../../../src/core/steps/index.ts';
import { day1, day2, makeCluster, OPTIONS } from './fixtures.ts';

function request(f: ReturnType<typeof day1>, options: Partial<StepsOptions> = {}): InstallCmdRequest {
  const r = buildInstallCmdRequest({ ...f, options: { ...OPTIONS, ...options } });
  if ('error' in r) throw new Error(r.error);
  return r.request;
}
const args = (f: ReturnType<typeof day1>, options: Partial<StepsOptions> = {}) =>
  JSON.parse(request(f, options).installer_args ?? '[]') as string[];

function withDisk(f: ReturnType<typeof day1>, disk: Partial<Disk>): ReturnType<typeof day1> {
  f.host.inventory!.disks![0] = { ...f.host.inventory!.disks![0], ...disk };
  return f;
}

describe('InstallCmdRequest', () => {
  it('role: bootstrap flag wins, else the effective role', () => {
    expect(request(day1('installing')).role).toBe('bootstrap');
    expect(
      request(day1('installing', { bootstrap: false, role: 'auto-assign', suggested_role: 'worker' })).role,
    ).toBe('worker');
  });

  it('errors: no cluster, no boot device, bad installer args, no machine CIDR on day 1', () => {
    const f = day1('installing');
    expect(buildInstallCmdRequest({ ...f, cluster: undefined, options: OPTIONS })).toEqual({
      error: 'install needs the host cluster',
    });
    expect(
      buildInstallCmdRequest({ ...day1('installing', { installer_args: '{' }), options: OPTIONS }),
    ).toEqual({
      error: 'failed to parse installer args of host a0000000-0000-4000-8000-000000000001',
    });
    expect(
      buildInstallCmdRequest({ ...day1('installing', { installer_args: '[1]' }), options: OPTIONS }),
    ).toHaveProperty('error');
    expect(
      buildInstallCmdRequest({ ...day1('installing', {}, { machine_networks: [] }), options: OPTIONS }),
    ).toEqual({
      error: 'failed to get machine network CIDR',
    });
  });

  it('UMN without machine networks uses the bootstrap host network', () => {
    expect(args(day1('installing', {}, { machine_networks: [], user_managed_networking: true }))).toEqual([
      '--append-karg',
      'ip=52-54-00-00-00-01:dhcp',
    ]);
    // Day-2 without a machine network: no DHCP kargs, no error.
    expect(args(day2('installing', {}, { machine_networks: [] }))).toEqual([]);
  });

  it('dual-stack machine networks → dhcp,dhcp6; IPv6 only → dhcp6', () => {
    expect(
      args(
        day1('installing', {}, { machine_networks: [{ cidr: '192.168.111.0/24' }, { cidr: 'fd00::/64' }] }),
      ),
    ).toEqual(['--append-karg', 'ip=52-54-00-00-00-01:dhcp,dhcp6']);
    expect(args(day1('installing', {}, { machine_networks: [{ cidr: 'fd00::/64' }] }))).toEqual([
      '--append-karg',
      'ip=52-54-00-00-00-01:dhcp6',
    ]);
  });

  it('static networking → --copy-network; user ip= karg suppresses DHCP kargs', () => {
    const f = day1('installing');
    f.infraEnv.static_network_config = [{ network_yaml: 'x', mac_interface_map: [] }];
    expect(args(f)).toEqual(['--copy-network']);
    expect(args(day1('installing'), { staticNetworkConfigured: true })).toEqual(['--copy-network']);
    expect(args(day1('installing', { installer_args: '["--append-karg","ip=eth0:dhcp"]' }))).toEqual([
      '--append-karg',
      'ip=eth0:dhcp',
    ]);
  });

  it('multipath, RAID and iSCSI kargs', () => {
    expect(args(withDisk(day1('installing'), { drive_type: 'Multipath' })).slice(0, 4)).toEqual([
      '--append-karg',
      'rw',
      '--append-karg',
      'rd.multipath=default',
    ]);
    expect(args(withDisk(day1('installing'), { drive_type: 'RAID' })).slice(0, 4)).toEqual([
      '--append-karg',
      'rd.md=1',
      '--append-karg',
      'rd.auto=1',
    ]);
    expect(
      args(
        withDisk(day1('installing'), { drive_type: 'iSCSI', iscsi: { host_ip_address: '10.0.0.11' } }),
      ).slice(0, 4),
    ).toEqual(['--append-karg', 'rd.iscsi.firmware=1', '--append-karg', 'ip=52-54-00-00-01-01:dhcp']);
    expect(
      args(withDisk(day1('installing'), { drive_type: 'iSCSI', iscsi: { host_ip_address: 'fd00::11' } }))[3],
    ).toBe('ip=52-54-00-00-00-01:dhcp6');
    expect(args(withDisk(day1('installing'), { drive_type: 'iSCSI' })).slice(0, 3)).toEqual([
      '--append-karg',
      'rd.iscsi.firmware=1',
      '--append-karg',
    ]);
  });

  it('s390x: kargs copied from the boot command line; ip= there overrides DHCP', () => {
    const f = day1('installing', {}, { cpu_architecture: 's390x' });
    f.host.inventory!.boot!.command_line =
      'rd.neednet=1 rd.znet=qeth,0.0.bdf0 rd.dasd=0.0.5235 zfcp.allow_lun_scan=0 console=ttysclp0';
    expect(args(f)).toEqual([
      '--append-karg',
      'rd.neednet=1',
      '--append-karg',
      'rd.znet=qeth,0.0.bdf0',
      '--append-karg',
      'rd.dasd=0.0.5235',
      '--append-karg',
      'zfcp.allow_lun_scan=0',
      '--append-karg',
      'ip=52-54-00-00-00-01:dhcp',
    ]);
    f.host.inventory!.boot!.command_line =
      'rd.neednet=1 ip=10.0.0.5::10.0.0.1:255.255.255.0::enc1:none nameserver=10.0.0.1';
    expect(args(f)).toEqual([
      '--append-karg',
      'rd.neednet=1',
      '--append-karg',
      'ip=10.0.0.5::10.0.0.1:255.255.255.0::enc1:none',
      '--append-karg',
      'nameserver=10.0.0.1',
    ]);
  });

  it('save partitions: skip disk cleanup and keep the boot disk out of disks_to_format', () => {
    const r = request(day1('installing', { installer_args: '["--save-partindex","5"]' }));
    expect(r.skip_installation_disk_cleanup).toBe(true);
    expect(r.disks_to_format).toEqual(['/dev/disk/by-id/wwn-0x2']);
    expect(
      request(day1('installing', { skip_formatting_disks: '/dev/disk/by-id/wwn-0x2' })).disks_to_format,
    ).toEqual(['/dev/disk/by-id/wwn-0x1']);
  });

  it('enable_skip_mco_reboot: flag, not s390x, OCP ≥ 4.15, not a dm device', () => {
    const on = { enableSkipMcoReboot: true };
    expect(request(day1('installing'), on).enable_skip_mco_reboot).toBe(true);
    expect(request(day1('installing')).enable_skip_mco_reboot).toBeUndefined();
    expect(
      request(day1('installing', {}, { openshift_version: '4.14.9' }), on).enable_skip_mco_reboot,
    ).toBeUndefined();
    expect(
      request(day1('installing', {}, { cpu_architecture: 's390x' }), on).enable_skip_mco_reboot,
    ).toBeUndefined();
    expect(
      request(withDisk(day1('installing'), { name: 'dm-0' }), on).enable_skip_mco_reboot,
    ).toBeUndefined();
  });

  it('kube-API mode: no reboot-count notification; check_cvo and service IPs configurable', () => {
    const r = request(day1('installing'), { kubeApiMode: true, checkCvo: false, serviceIps: ['10.1.1.1'] });
    expect(r.notify_num_reboots).toBeUndefined();
    expect(r.check_cvo).toBe(false);
    expect(r.service_ips).toEqual(['10.1.1.1']);
  });

  it('day-1 only fields; persistent boot CoreOS image (day-2 falls back to the worker MachineConfig)', () => {
    const d2 = day2('installing');
    d2.host.inventory!.boot = { device_type: 'persistent' };
    const r = request(d2, { release: {} });
    expect(r.mco_image).toBeUndefined();
    expect(r.openshift_version).toBeUndefined();
    expect(r.coreos_image).toBe('quay.io/day2/rhcos@sha256:1');
    const d1 = day1('installing');
    d1.host.inventory!.boot = { device_type: 'persistent' };
    expect(request(d1, { release: {} }).coreos_image).toBeUndefined();
    expect(request(d1).coreos_image).toBe('quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:rhcos');
  });

  it('must-gather image: plain for "ocp" only, else a JSON map', () => {
    expect(mustGatherImageArg(undefined)).toBeUndefined();
    expect(mustGatherImageArg({})).toBeUndefined();
    expect(mustGatherImageArg({ ocp: 'a' })).toBe('a');
    expect(mustGatherImageArg({ ocp: 'a', cnv: 'b' })).toBe('{"cnv":"b","ocp":"a"}');
  });

  it('proxy and no_proxy', () => {
    const cluster = (c: Partial<Cluster>) => makeCluster([], c);
    expect(installerNoProxy(cluster({ no_proxy: 'example.com,.svc' }))).toBe(
      'example.com,.svc,127.0.0.1,localhost,.cluster.local,api-int.ostest.example.com',
    );
    expect(installerNoProxy(cluster({ no_proxy: ' * ' }))).toBe('*');
    expect(request(day1('installing', {}, { http_proxy: 'http://p:3128' })).proxy).toEqual({
      http_proxy: 'http://p:3128',
      https_proxy: '',
      no_proxy: '127.0.0.1,localhost,.svc,.cluster.local,api-int.ostest.example.com',
    });
    expect(request(day1('installing')).proxy).toBeUndefined();
  });

  it('host without inventory disks still gets a request', () => {
    const f = day1('installing', { inventory: undefined } as Partial<Host>, {
      user_managed_networking: true,
    });
    const r = buildInstallCmdRequest({ ...f, options: OPTIONS });
    expect('request' in r && r.request.disks_to_format).toEqual([]);
  });
});
