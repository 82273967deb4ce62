// Condition messages that list validation messages. Upstream walks a Go map, so its order is
// random; here entries are sorted by category, then validation id (deliberate difference, see
// ../shared/spec/README.md "Deterministic messages"). Messages are joined with "," (no space), as
// upstream joins them.

/** Validations by category, as the API (`validationsInfo`) and the core (`validations_info`) hold them. */
export type ValidationsByCategory = Record<
  string,
  readonly { id: string; status: string; message: string }[]
>;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Messages of the validations whose status is not in `passing`, sorted by category then id. */
export function sortedFailingValidationMessages(
  info: ValidationsByCategory | undefined,
  passing: readonly string[],
): string[] {
  const out: { category: string; id: string; message: string }[] = [];
  for (const [category, results] of Object.entries(info ?? {})) {
    for (const r of results) {
      if (!passing.includes(r.status)) out.push({ category, id: r.id, message: r.message });
    }
  }
  out.sort((a, b) => compare(a.category, b.category) || compare(a.id, b.id));
  return out.map((e) => e.message);
}

/** Whether validations were computed at all (the map has a category). */
export function hasValidations(info: ValidationsByCategory | undefined): boolean {
  return Object.keys(info ?? {}).length > 0;
}
