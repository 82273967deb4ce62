import { describe, expect, it } from 'vitest';
import type { AgentClassification } from '../../../src/api/agentclassification.ts';
import {
  AGENTCLASSIFICATION_LABEL_MODIFIED_MESSAGE,
  AGENTCLASSIFICATION_QUERYERROR_MESSAGE,
  validateAgentClassification,
} from '../../../src/webhooks/agentclassification.ts';
import { aggregateErrors, labelKeyErrors, labelValueErrors } from '../../../src/webhooks/labels.ts';
import type { DeepPartial } from '../../../src/webhooks/types.ts';

type Ac = DeepPartial<AgentClassification>;

function ac(spec: Ac['spec'] = {}): Ac {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'AgentClassification',
    metadata: { name: 'large', namespace: 'ns' },
    spec: { labelKey: 'size', labelValue: 'large', query: '.cpu.count >= 8', ...spec },
  };
}

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('validateAgentClassification: CREATE', () => {
  it('accepts a valid label and query', () => {
    expect(validateAgentClassification('CREATE', ac())).toEqual({ allowed: true });
    expect(
      validateAgentClassification(
        'CREATE',
        ac({
          query:
            '[.disks[] | select(.driveType == "SSD")] | length > 0 and .memory.physicalBytes >= 34359738368',
        }),
      ),
    ).toEqual({ allowed: true });
  });

  it('rejects a value starting with QUERYERROR', () => {
    expect(validateAgentClassification('CREATE', ac({ labelValue: 'QUERYERROR-x' }))).toEqual({
      allowed: false,
      code: 400,
      message: 'label must not start with QUERYERROR as this is reserved',
    });
    expect(AGENTCLASSIFICATION_QUERYERROR_MESSAGE).toBe(
      'label must not start with QUERYERROR as this is reserved',
    );
  });

  it('rejects an invalid label key or value', () => {
    expect(validateAgentClassification('CREATE', ac({ labelKey: 'bad key!' }))).toEqual({
      allowed: false,
      code: 400,
      message: `spec.labelKey: Invalid value: "agentclassification.agent-install.openshift.io/bad key!": ${NAME_PART}`,
    });
    expect(validateAgentClassification('CREATE', ac({ labelValue: '-x-' }))).toEqual({
      allowed: false,
      code: 400,
      message: `spec.labelValue: Invalid value: "-x-": ${VALUE}`,
    });
    expect(validateAgentClassification('CREATE', ac({ labelKey: 'a/b' })).allowed).toBe(false);
    expect(validateAgentClassification('CREATE', ac({ labelKey: 'x'.repeat(64) })).allowed).toBe(false);
    expect(validateAgentClassification('CREATE', ac({ labelKey: '' })).allowed).toBe(false);
  });

  it('rejects a query that does not parse', () => {
    expect(validateAgentClassification('CREATE', ac({ query: '.cpu.count >=' }))).toEqual({
      allowed: false,
      code: 400,
      message: 'spec.query: Invalid value: ".cpu.count >=": failed to parse query: unexpected EOF',
    });
    expect(validateAgentClassification('CREATE', ac({ query: '  ' }))).toEqual({
      allowed: false,
      code: 400,
      message: 'spec.query: Required value: the query must not be empty',
    });
  });

  it('aggregates every problem into one message', () => {
    const res = validateAgentClassification('CREATE', ac({ labelValue: 'QUERYERROR!', query: '.a +' }));
    expect(res).toEqual({
      allowed: false,
      code: 400,
      message:
        `[spec.labelValue: Invalid value: "QUERYERROR!": ${VALUE}, ` +
        'label must not start with QUERYERROR as this is reserved, ' +
        'spec.query: Invalid value: ".a +": failed to parse query: unexpected EOF]',
    });
  });
});

describe('validateAgentClassification: UPDATE', () => {
  it('rejects a label key or value change', () => {
    expect(AGENTCLASSIFICATION_LABEL_MODIFIED_MESSAGE).toBe(
      'Label modified: the specified label may not be modified after creation',
    );
    for (const spec of [{ labelKey: 'other' }, { labelValue: 'small' }]) {
      expect(validateAgentClassification('UPDATE', ac(spec), ac())).toEqual({
        allowed: false,
        code: 400,
        message: AGENTCLASSIFICATION_LABEL_MODIFIED_MESSAGE,
      });
    }
  });

  it('allows query changes that parse and rejects ones that do not', () => {
    expect(validateAgentClassification('UPDATE', ac({ query: '.cpu.count >= 16' }), ac())).toEqual({
      allowed: true,
    });
    expect(validateAgentClassification('UPDATE', ac({ query: '.cpu.count >=' }), ac())).toMatchObject({
      allowed: false,
      message: 'spec.query: Invalid value: ".cpu.count >=": failed to parse query: unexpected EOF',
    });
  });

  it('does not re-check an unchanged query (objects created before the webhook keep working)', () => {
    const old = ac({ query: '.a +' });
    expect(
      validateAgentClassification('UPDATE', { ...old, metadata: { name: 'x', labels: { a: 'b' } } }, old),
    ).toEqual({
      allowed: true,
    });
  });
});

describe('label syntax', () => {
  it('checks qualified names', () => {
    expect(labelKeyErrors('example.com/name')).toEqual([]);
    expect(labelKeyErrors('name')).toEqual([]);
    expect(labelKeyErrors('/name')).toEqual(['prefix part must be non-empty']);
    expect(labelKeyErrors('Example.com/name')[0]).toMatch(/^prefix part a lowercase RFC 1123 subdomain/);
    expect(labelKeyErrors('a/b/c')[0]).toMatch(/^a qualified name must consist/);
    expect(labelKeyErrors('example.com/')).toEqual(['name part must be non-empty']);
    expect(labelKeyErrors(`p/${'x'.repeat(64)}`)).toEqual(['name part must be no more than 63 characters']);
  });

  it('checks values', () => {
    expect(labelValueErrors('')).toEqual([]);
    expect(labelValueErrors('a.b-c_d')).toEqual([]);
    expect(labelValueErrors('x'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(labelValueErrors('a b')).toEqual([VALUE]);
  });

  it('aggregates like Kubernetes', () => {
    expect(aggregateErrors(['a'])).toBe('a');
    expect(aggregateErrors(['a', 'b'])).toBe('[a, b]');
  });
});
