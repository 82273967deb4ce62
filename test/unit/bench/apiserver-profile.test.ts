import { describe, expect, it } from 'vitest';
import { parsePprofTop } from '../../../bench/apiserver-profile.ts';

// Rows as `go tool pprof -top -cum` prints them (flat, flat%, sum%, cum, cum%, function).
const TOP = `File: kube-apiserver
Type: cpu
Duration: 8s, Total samples = 13.28s (165.98%)
Showing nodes accounting for 8.45s, 63.63% of 13.28s total
      flat  flat%   sum%        cum   cum%
         0     0%     0%      4.40s 33.13%  k8s.io/apiextensions-apiserver/pkg/registry/customresource.(*StatusREST).Update
     0.01s 0.075%  0.53%      3.11s 23.42%  k8s.io/apiextensions-apiserver/pkg/apiserver.schemaCoercingDecoder.Decode
         0     0%  7.53%      1.95s 14.68%  runtime.gcBgMarkWorker
         0     0% 25.83%    620ms  4.67%  k8s.io/apiserver/pkg/registry/generic/registry.(*Store).Create
         0     0% 25.83%      0.02s  0.15%  k8s.io/apiserver/pkg/registry/generic/registry.(*Store).CreateSomethingElse
`;

describe('parsePprofTop', () => {
  it('reads the sampled CPU and each activity’s cumulative share, milliseconds included', () => {
    const p = parsePprofTop(TOP);
    expect(p.sampledCpuSeconds).toBeCloseTo(13.28);
    expect(p.shares['status writes of custom resources']).toBeCloseTo(4.4 / 13.28);
    expect(p.shares['decoding custom resources (bodies, stored objects)']).toBeCloseTo(3.11 / 13.28);
    expect(p.shares['garbage collection (background)']).toBeCloseTo(1.95 / 13.28);
    // Only the exact function counts, not one whose name starts the same.
    expect(p.shares.creates).toBeCloseTo(0.62 / 13.28);
    expect(p.shares['managed fields']).toBe(0);
  });

  it('reads no total from text that is not a profile: NaN CPU, every share 0', () => {
    const p = parsePprofTop('not a profile');
    expect(p.sampledCpuSeconds).toBeNaN();
    expect(Object.values(p.shares).every((v) => v === 0)).toBe(true);
  });
});
