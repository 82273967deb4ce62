import { describe, expect, it } from 'vitest';
import { JqSyntaxError, jqSyntaxError, parseJq } from '../../../src/webhooks/jq.ts';

const VALID = [
  // classification-style queries
  '.cpu.count >= 8 and .memory.physicalBytes >= 34359738368',
  '[.disks[] | select(.driveType == "SSD" and .sizeBytes >= 500000000000)] | length >= 2',
  'any(.disks[]; .driveType == "SSD")',
  '.systemVendor.manufacturer | ascii_downcase | contains("dell")',
  '.interfaces | map(.name) | index("eth0") != null',
  '.memory.physicalBytes / 1024 / 1024 / 1024 >= 16',
  // paths and suffixes
  '.',
  '..',
  '.[]',
  '.[0]',
  '.[-1]',
  '.[1:2]',
  '.[:2]',
  '.[1:]',
  '.a.b.c',
  '.a?',
  '.a[]?',
  '.["a"]',
  '."a-b"',
  '.a."b"',
  '.a.[0]',
  '..|numbers',
  '$__loc__',
  '$ENV.HOME != null',
  'env | has("x")',
  // operators
  '.a = 1',
  '.a |= . + 1',
  '.a //= 3',
  '.a += 1',
  '.a // .b // false',
  '-1 < 2',
  '1 + 2 * 3 - 4 / 5 % 6 == 7',
  '1, 2 | . > 1',
  'not',
  '[.[] | not] | all',
  '1e10 > .5',
  '.a and .b or .c',
  // control flow and definitions
  'if .cpu.count > 4 then true elif .cpu.count > 2 then false else false end',
  'if . then 1 end',
  'try error("x") catch . == "x"',
  'reduce .[] as $x (0; . + $x) > 3',
  'foreach .[] as [$a, $b] (0; . + $a; [$a, .])',
  'foreach .[] as $x (0; . + $x)',
  '. as {a: $x, $y, "b": [$z], (.k): $w} ?// [$x] | $x',
  '.a as $x | .b as $y | $x == $y',
  'def f(g; $x): g + $x; f(.a; 1)',
  'def f: 1; def g: 2; f + g',
  'def f: .;',
  'label $out | foreach .[] as $item (0; .+1; if . > 3 then ., break $out else empty end)',
  'limit(3; .[])',
  'path(..)',
  '[paths]',
  'getpath(["a","b"])',
  'input_line_number? // 0',
  // strings, formats, objects
  '"abc \\(.a + 1) def \\("x\\(.b)")" | length > 0',
  '"\\u00e9\\n\\t\\"" | length == 4',
  '@base64 "x\\(.)" | test("a")',
  '@json',
  '{a: 1, "b": 2, (.c): 3, $__loc__, if: 4, d: .e | .f, g: -1}',
  '{"a\\(1)": 2}',
  '{(1,2|tostring): 3}',
  '{}',
  '# comment\n.a == 1 # trailing',
  'import "a" as b; include "c"; .',
];

const INVALID: Array<[string, string]> = [
  ['.cpu.count >=', 'unexpected EOF'],
  ['.a +', 'unexpected EOF'],
  ['if . then 1', 'unexpected EOF'],
  ['(1', 'unexpected EOF'],
  ['[1', 'unexpected EOF'],
  ['{a', 'unexpected EOF'],
  ['{a: 1 + 2}', 'unexpected token "+"'],
  ['.a = .b = .c', 'unexpected token "="'],
  ['1 == 2 == 3', 'unexpected token "=="'],
  ['"unterminated', 'unterminated string literal'],
  ['"bad \\q escape"', 'invalid escape: "\\\\q"'],
  ['"\\u12"', 'invalid escape: "\\\\u12\\""'],
  ['. as $x', 'unexpected EOF'],
  ['reduce . as $x (0)', 'unexpected token ")"'],
  ['.a.b.', 'unexpected EOF'],
  ['1 2', 'unexpected token "2"'],
  ['def f .;', 'unexpected token "."'],
  ['foo(', 'unexpected EOF'],
  ['.[1:2:3]', 'unexpected token ":"'],
  ['$', 'unexpected token "$"'],
  ['@', 'unexpected token "@"'],
  ['!', 'unexpected token "!"'],
  ['try', 'unexpected EOF'],
  ['.a..b', 'unexpected token ".."'],
  ['def if: 1; if', 'unexpected token "if"'],
  ['{a,}', 'unexpected token "}"'],
  [')', 'unexpected token ")"'],
  ['"\\(1 +)"', 'unexpected EOF'],
  ['and', 'unexpected token "and"'],
  ['. as 1 | .', 'unexpected token "1"'],
  ['1x', 'invalid number: "1x"'],
  ['.a?//1', 'unexpected token "?//"'],
];

describe('jq syntax', () => {
  it.each(VALID)('accepts %j', (q) => {
    expect(jqSyntaxError(q)).toBeUndefined();
  });

  it.each(INVALID)('rejects %j: %s', (q, message) => {
    expect(jqSyntaxError(q)).toBe(message);
  });

  it('reports the offset of the problem', () => {
    try {
      parseJq('.a | .b +* 2');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(JqSyntaxError);
      expect((err as JqSyntaxError).offset).toBe(9);
    }
  });

  it('does not overflow on deep nesting', () => {
    expect(jqSyntaxError(`${'('.repeat(5000)}.${')'.repeat(5000)}`)).toBe('query is nested too deeply');
    expect(jqSyntaxError(`${'['.repeat(100)}1${']'.repeat(100)}`)).toBeUndefined();
  });
});
