import { describe, expect, it } from 'vitest';
import type { RuleCondition } from '../../../platform/db/schema.automation.ts';
import { CONDITION_OPERATORS, type TriggerEnvelope } from '../automation.types.ts';
import { evaluateCondition, evaluateConditions, validateCondition } from './conditions.ts';

const envelope: TriggerEnvelope = {
  event_type: 'ticket.created',
  data: {
    ticket_id: 't-1',
    title: 'Printer on fire',
    priority_name: 'High',
    count: 5,
    ratio: 2.5,
    zero: 0,
    numeric_text: '42',
    flag: true,
    nothing: null,
    tags: ['printer', 'urgent', 7],
    due: '2026-11-25T10:00:00.000Z',
    day: '2026-11-25',
    nested: { client: { name: 'Acme' } },
    long: 'a'.repeat(20_000),
  },
  changes: { status_id: { old: 'a', new: 'b' } },
  trigger: { type: 'event' },
};

const check = (field: string, operator: string, value?: unknown) => evaluateCondition({ field, operator, value } as RuleCondition, envelope).passed;

describe('evaluateCondition', () => {
  it('equals / not_equals: strict and deep, numbers and numeric strings compare as numbers, nothing else is coerced', () => {
    expect(check('data.priority_name', 'equals', 'High')).toBe(true);
    expect(check('data.priority_name', 'equals', 'high')).toBe(false);
    expect(check('data.count', 'equals', 5)).toBe(true);
    expect(check('data.count', 'equals', '5')).toBe(true);
    expect(check('data.count', 'equals', ' 5.0 ')).toBe(true);
    expect(check('data.numeric_text', 'equals', 42)).toBe(true);
    expect(check('data.numeric_text', 'equals', '42.0')).toBe(false);
    expect(check('data.flag', 'equals', true)).toBe(true);
    expect(check('data.flag', 'equals', 'true')).toBe(false);
    expect(check('data.zero', 'equals', '')).toBe(false);
    expect(check('data.nothing', 'equals', null)).toBe(true);
    expect(check('data.missing', 'equals', null)).toBe(false);
    expect(check('data.nested', 'equals', { client: { name: 'Acme' } })).toBe(true);
    expect(check('data.tags', 'equals', ['printer', 'urgent', 7])).toBe(true);
    expect(check('changes.status_id.new', 'equals', 'b')).toBe(true);
    expect(check('event_type', 'equals', 'ticket.created')).toBe(true);
    expect(check('data.priority_name', 'not_equals', 'Low')).toBe(true);
    expect(check('data.count', 'not_equals', '5')).toBe(false);
    expect(check('data.missing', 'not_equals', 'x')).toBe(true);
  });

  it('greater/less (or equal) on numbers, numeric strings and ISO dates; anything else is false', () => {
    expect(check('data.count', 'greater_than', 4)).toBe(true);
    expect(check('data.count', 'greater_than', 5)).toBe(false);
    expect(check('data.count', 'greater_than_or_equal', 5)).toBe(true);
    expect(check('data.count', 'less_than', '10')).toBe(true);
    expect(check('data.ratio', 'less_than_or_equal', 2.5)).toBe(true);
    expect(check('data.numeric_text', 'greater_than', 41)).toBe(true);
    expect(check('data.due', 'greater_than', '2026-11-25T09:59:59Z')).toBe(true);
    expect(check('data.due', 'less_than', '2026-11-24')).toBe(false);
    expect(check('data.day', 'less_than_or_equal', '2026-11-25T00:00:00Z')).toBe(true);
    expect(check('data.title', 'greater_than', 1)).toBe(false);
    expect(check('data.missing', 'less_than', 1)).toBe(false);
    expect(check('data.due', 'greater_than', 5)).toBe(false);
  });

  it('contains / not_contains on strings (substring) and arrays (membership)', () => {
    expect(check('data.title', 'contains', 'on fire')).toBe(true);
    expect(check('data.title', 'contains', 'On Fire')).toBe(false);
    expect(check('data.tags', 'contains', 'urgent')).toBe(true);
    expect(check('data.tags', 'contains', '7')).toBe(true);
    expect(check('data.tags', 'contains', 'urg')).toBe(false);
    expect(check('data.count', 'contains', 5)).toBe(false);
    expect(check('data.title', 'not_contains', 'water')).toBe(true);
    expect(check('data.tags', 'not_contains', 'printer')).toBe(false);
    expect(check('data.missing', 'not_contains', 'x')).toBe(true);
  });

  it('starts_with / ends_with on strings only', () => {
    expect(check('data.title', 'starts_with', 'Printer')).toBe(true);
    expect(check('data.title', 'starts_with', 'printer')).toBe(false);
    expect(check('data.title', 'ends_with', 'fire')).toBe(true);
    expect(check('data.count', 'starts_with', '5')).toBe(false);
    expect(check('data.missing', 'ends_with', '')).toBe(false);
  });

  it('in / not_in against an array value', () => {
    expect(check('data.priority_name', 'in', ['High', 'Critical'])).toBe(true);
    expect(check('data.priority_name', 'in', ['Low'])).toBe(false);
    expect(check('data.count', 'in', ['5', 6])).toBe(true);
    expect(check('data.priority_name', 'in', 'High')).toBe(false);
    expect(check('data.priority_name', 'not_in', ['Low', 'Medium'])).toBe(true);
    expect(check('data.priority_name', 'not_in', ['High'])).toBe(false);
    expect(check('data.missing', 'not_in', ['x'])).toBe(true);
  });

  it('exists / not_exists: present and not null', () => {
    expect(check('data.ticket_id', 'exists')).toBe(true);
    expect(check('data.zero', 'exists')).toBe(true);
    expect(check('data.nothing', 'exists')).toBe(false);
    expect(check('data.missing', 'exists')).toBe(false);
    expect(check('data.nested.client.name', 'exists')).toBe(true);
    expect(check('data.tags.1', 'exists')).toBe(true);
    expect(check('data.tags.9', 'exists')).toBe(false);
    expect(check('data.title.length', 'exists')).toBe(false);
    expect(check('data.__proto__', 'exists')).toBe(false);
    expect(check('data.nothing', 'not_exists')).toBe(true);
    expect(check('data.missing', 'not_exists')).toBe(true);
    expect(check('data.flag', 'not_exists')).toBe(false);
  });

  it('regex_match with RE2 syntax: unanchored, inline flags, numbers as text; bad patterns and long inputs fail with a reason', () => {
    expect(check('data.title', 'regex_match', '^Printer\\s+on')).toBe(true);
    expect(check('data.title', 'regex_match', 'fire$')).toBe(true);
    expect(check('data.title', 'regex_match', '^fire')).toBe(false);
    expect(check('data.title', 'regex_match', '(?i)PRINTER')).toBe(true);
    expect(check('data.count', 'regex_match', '^\\d$')).toBe(true);
    expect(check('data.nested', 'regex_match', 'Acme')).toBe(false);
    const bad = evaluateCondition({ field: 'data.title', operator: 'regex_match', value: '(a' }, envelope);
    expect(bad).toMatchObject({ passed: false, error: expect.stringContaining('invalid RE2 pattern') });
    const backref = evaluateCondition({ field: 'data.title', operator: 'regex_match', value: '(a)\\1' }, envelope);
    expect(backref).toMatchObject({ passed: false, error: expect.any(String) });
    const tooLong = evaluateCondition({ field: 'data.long', operator: 'regex_match', value: 'a' }, envelope);
    expect(tooLong).toMatchObject({ passed: false, error: 'the input is longer than 10000 characters' });
    expect(typeof tooLong.actual === 'string' && tooLong.actual.length).toBe(501);
    expect(evaluateCondition({ field: 'data.title', operator: 'regex_match', value: 'x'.repeat(501) }, envelope).error).toContain('longer than 500');
  });

  it('a pathological pattern on a long input finishes in linear time', () => {
    const input = `${'a'.repeat(9_999)}!`;
    const started = performance.now();
    const result = evaluateCondition({ field: 'data.s', operator: 'regex_match', value: '(a+)+$' }, { data: { s: input } });
    const nested = evaluateCondition({ field: 'data.s', operator: 'regex_match', value: '^(a|a?)+b$' }, { data: { s: 'a'.repeat(9_999) } });
    expect(result.passed).toBe(false);
    expect(nested.passed).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('an unknown operator fails with a reason', () => {
    expect(evaluateCondition({ field: 'data.title', operator: 'like', value: 'x' }, envelope)).toMatchObject({ passed: false, error: "unknown operator 'like'" });
  });
});

describe('evaluateConditions', () => {
  const yes = { field: 'data.priority_name', operator: 'equals', value: 'High' };
  const no = { field: 'data.priority_name', operator: 'equals', value: 'Low' };
  it('and needs every condition, or one; none always matches; every result is reported', () => {
    expect(evaluateConditions([yes, yes], 'and', envelope).matched).toBe(true);
    expect(evaluateConditions([yes, no], 'and', envelope).matched).toBe(false);
    expect(evaluateConditions([no, yes], 'or', envelope).matched).toBe(true);
    expect(evaluateConditions([no, no], 'or', envelope).matched).toBe(false);
    expect(evaluateConditions([], 'and', envelope)).toEqual({ matched: true, results: [] });
    expect(evaluateConditions([], 'or', envelope).matched).toBe(true);
    const { results } = evaluateConditions([no, yes], 'and', envelope);
    expect(results).toEqual([
      { field: 'data.priority_name', operator: 'equals', value: 'Low', actual: 'High', passed: false },
      { field: 'data.priority_name', operator: 'equals', value: 'High', actual: 'High', passed: true },
    ]);
  });
});

describe('validateCondition', () => {
  it('accepts a valid condition of every operator', () => {
    const values: Record<string, unknown> = {
      equals: 'x', not_equals: 1, greater_than: 3, less_than: '2026-01-01', greater_than_or_equal: '5', less_than_or_equal: 2,
      contains: 'x', not_contains: 3, starts_with: 'a', ends_with: 'b', in: ['a', 1], not_in: [null], exists: undefined, not_exists: undefined, regex_match: '^a+$',
    };
    for (const operator of CONDITION_OPERATORS) expect(validateCondition({ field: 'data.x', operator, value: values[operator] }), operator).toBeNull();
  });

  it('names the problem', () => {
    expect(validateCondition({ field: 'nope.x', operator: 'equals', value: 1 })).toContain('must start with');
    expect(validateCondition({ field: 'data..x', operator: 'equals', value: 1 })).toContain('dotted path');
    expect(validateCondition({ field: 'data.x', operator: 'like', value: 1 })).toContain('operator must be one of');
    expect(validateCondition({ field: 'data.x', operator: 'in', value: 'a' })).toBe('in needs an array value');
    expect(validateCondition({ field: 'data.x', operator: 'greater_than', value: 'soon' })).toContain('number or an ISO 8601 date');
    expect(validateCondition({ field: 'data.x', operator: 'starts_with', value: 1 })).toBe('starts_with needs a string value');
    expect(validateCondition({ field: 'data.x', operator: 'equals' })).toBe('equals needs a value');
    expect(validateCondition({ field: 'data.x', operator: 'regex_match', value: '(' })).toContain('invalid RE2 pattern');
    expect(validateCondition({ field: 'data.x', operator: 'regex_match', value: 'a'.repeat(501) })).toContain('longer than 500');
  });
});
