// The test ISO builder lives in src/dev (the local demo uses it too).
export * from '../../src/dev/test-iso.ts';
