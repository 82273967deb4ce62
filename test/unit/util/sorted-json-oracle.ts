// The oracle of the JSON helpers' tests: JSON.stringify with every object's keys sorted, in the
// plain replacer form stableJson replaced (an entries array and a new object per object).
export function sortedJsonOracle(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
