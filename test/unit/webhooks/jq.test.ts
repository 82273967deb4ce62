// The AgentClassification webhook admits a query exactly when the AgentLabel controller can run it:
// both use src/core/jq, checked here on the shared query table.
import { describe, expect, it } from 'vitest';
import type { AgentClassification } from '../../../src/api/index.ts';
import { classify } from '../../../src/core/jq/index.ts';
import { validateAgentClassification } from '../../../src/webhooks/agentclassification.ts';
import { ADMITTED, inventory, QUERIES, UNPARSABLE } from '../core/jq/queries.ts';

const create = (query: string): { allowed: boolean; message?: string } =>
  validateAgentClassification('CREATE', {
    metadata: { name: 'c', namespace: 'ns' },
    spec: { labelKey: 'size', labelValue: 'large', query },
  } as Partial<AgentClassification>);

describe('AgentClassification admission and evaluation agree', () => {
  it.each(QUERIES.filter((r) => !r.refused))(
    'admits $query, which the label controller runs',
    ({ query, outputs, runtimeError }) => {
      expect(create(query)).toMatchObject({ allowed: true });
      const result = classify(query, inventory);
      if (runtimeError)
        expect(result).toMatchObject({ kind: 'error', message: expect.stringMatching(runtimeError) });
      else if (outputs?.length === 1) expect(result.kind).not.toBe('error');
      else expect(result).toMatchObject({ kind: 'error', message: expect.stringMatching(/^Expected/) });
    },
  );

  it.each(QUERIES.filter((r) => r.refused))('refuses $query: $refused', ({ query, refused }) => {
    const res = create(query);
    expect(res.allowed).toBe(false);
    expect(res.message).toContain(`query: ${refused}`);
  });

  it.each(ADMITTED)('admits %j and it compiles for evaluation', (query) => {
    expect(create(query)).toMatchObject({ allowed: true });
    const result = classify(query, inventory);
    if (result.kind === 'error') expect(result.message).not.toMatch(/not defined|unexpected|not found/);
  });

  it.each(UNPARSABLE)('refuses %j: %s', (query, message) => {
    expect(create(query).message).toContain(`failed to parse query: ${message}`);
  });

  it('says "compile" for a name that does not exist', () => {
    expect(create('nosuchfn').message).toContain(
      'spec.query: Invalid value: "nosuchfn": failed to compile query: function not defined: nosuchfn/0',
    );
  });
});
