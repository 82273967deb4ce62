// The host inbox (results waiting for the reconciler) and the warm-up after a restart.
import { describe, expect, it } from 'vitest';
import { HostInbox, HostMemory, WARM_UP_MS, WarmUp } from '../../../../src/records/hosts/memory.ts';

describe('HostInbox', () => {
  it('merges updates and acknowledges only what was read', () => {
    const inbox = new HostInbox();
    inbox.put('h', { installerVersion: 'a' });
    inbox.put('h', { discoveryAgentVersion: 'b' });
    const read = inbox.peek('h')!;
    expect(read.update).toEqual({ installerVersion: 'a', discoveryAgentVersion: 'b' });
    inbox.put('h', { installerVersion: 'c' });
    inbox.ack('h', read.seq);
    expect(inbox.peek('h')?.update).toEqual({ installerVersion: 'c', discoveryAgentVersion: 'b' });
    inbox.ack('h', inbox.peek('h')!.seq);
    expect(inbox.peek('h')).toBeUndefined();
  });
  it('settles a waiting reply once what it put is written, and not when it is dropped', async () => {
    const inbox = new HostInbox();
    const first = inbox.whenApplied('h', inbox.put('h', { installerVersion: 'a' }), 60_000);
    const second = inbox.whenApplied('h', inbox.put('h', { installerVersion: 'b' }), 60_000);
    const read = inbox.peek('h')!;
    // A write of the merged entry covers both replies.
    inbox.ack('h', read.seq);
    expect(await Promise.all([first, second])).toEqual([true, true]);
    const older = inbox.put('h', { installerVersion: 'c' });
    const olderApplied = inbox.whenApplied('h', older, 60_000);
    const readOlder = inbox.peek('h')!;
    const newer = inbox.whenApplied('h', inbox.put('h', { installerVersion: 'd' }), 60_000);
    inbox.ack('h', readOlder.seq);
    expect(await olderApplied).toBe(true);
    inbox.delete('h');
    expect(await newer).toBe(false);
  });

  it('gives up on a write that does not come in time', async () => {
    const inbox = new HostInbox();
    expect(await inbox.whenApplied('h', inbox.put('h', { installerVersion: 'a' }), 10)).toBe(false);
    expect(inbox.peek('h')?.update).toEqual({ installerVersion: 'a' });
  });
});

describe('WarmUp', () => {
  it('is warm once the first round of steps has been answered', () => {
    const w = new WarmUp(1000);
    expect(w.isWarm('h', 1000)).toBe(false);
    w.onPoll('h', ['inventory', 'ntp-synchronizer']);
    w.onPoll('h', ['connectivity-check']); // only the first poll counts
    w.onReply('h', 'inventory');
    expect(w.isWarm('h', 1000)).toBe(false);
    w.onReply('h', 'ntp-synchronizer');
    expect(w.isWarm('h', 1000)).toBe(true);
  });

  it('is warm for every host once the window has passed, and at once for a registering host', () => {
    const w = new WarmUp(0);
    expect(w.isWarm('x', WARM_UP_MS - 1)).toBe(false);
    expect(w.isWarm('x', WARM_UP_MS)).toBe(true);
    w.markWarm('y');
    expect(w.isWarm('y', 0)).toBe(true);
    w.onPoll('z', []);
    expect(w.isWarm('z', 0)).toBe(true);
  });
});

describe('WarmUp: first polls', () => {
  it('refuses the first poll of a host it has not registered or heard, once', () => {
    const w = new WarmUp(0);
    expect(w.refusesFirstPoll('restored')).toBe(true);
    expect(w.refusesFirstPoll('restored')).toBe(false);
    w.markWarm('registered-here');
    expect(w.refusesFirstPoll('registered-here')).toBe(false);
    w.onPoll('polled', ['inventory']);
    expect(w.refusesFirstPoll('polled')).toBe(false);
    // A host forgotten (its Agent deleted) and back is a new host.
    w.forget('restored');
    expect(w.refusesFirstPoll('restored')).toBe(true);
  });
});

describe('HostMemory', () => {
  it('reads upstream timeouts from the environment', () => {
    const m = new HostMemory(0, { HOST_MAX_DISCONNECTION_TIME: '30s' });
    expect(m.smOptions.hostMaxDisconnectionMs).toBe(30_000);
    expect(m.smOptions.kubeApiEnabled).toBe(true);
  });
});
