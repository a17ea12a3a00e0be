import { describe, expect, it } from 'vitest';
import { EVALUATION_TIME_LIMIT_MS, ExpressionError, checkExpression, evaluateExpression, nestsDeeper } from './expressions.ts';

describe('JSONata expressions', () => {
  it('reports the position of a syntax error', () => {
    expect(checkExpression('a.b')).toBeUndefined();
    expect(checkExpression('a.(b')).toMatchObject({ position: expect.any(Number), code: 'S0203' });
    expect(checkExpression('  ')).toMatchObject({ message: 'the expression is empty' });
  });

  it('has the standard function library and returns plain JSON', async () => {
    const body = { items: [{ sku: 'a', qty: 2, price: 1.5 }, { sku: 'b', qty: 1, price: 10 }], name: ' Acme ' };
    expect(await evaluateExpression('$sum(items.(qty * price))', body)).toBe(13);
    expect(await evaluateExpression('$uppercase($trim(name))', body)).toBe('ACME');
    expect(await evaluateExpression('items[qty > 1].sku', body)).toBe('a');
    expect(await evaluateExpression('[items.sku]', body)).toEqual(['a', 'b']);
    expect(await evaluateExpression('$substringBefore("x-y", "-") & $string($count(items))', body)).toBe('x2');
    expect(await evaluateExpression('missing.path', body)).toBeUndefined();
    expect(await evaluateExpression('function($x) { $x }', body)).toBeUndefined();
    expect(await evaluateExpression('$headers.h', body, { headers: { h: 'v' } })).toBe('v');
  });

  it('stops a runaway evaluation while it runs', async () => {
    const started = Date.now();
    const err = await evaluateExpression('$count($map([1..90000], function($v) { $v * $v })) + $sum([1..90000])', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExpressionError);
    expect((err as ExpressionError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(EVALUATION_TIME_LIMIT_MS * 20);
    const deep = await evaluateExpression('($f := function($n) { $n = 0 ? 0 : $f($n - 1) }; $f(1000000))', {}).catch((e: unknown) => e);
    expect(deep).toBeInstanceOf(ExpressionError);
    const big = await evaluateExpression('$pad("", 300000, "x")', {}).catch((e: unknown) => e);
    expect((big as ExpressionError).reason).toBe('too_large');
  });

  it('measures nesting iteratively', () => {
    expect(nestsDeeper(JSON.parse('['.repeat(10) + ']'.repeat(10)), 10)).toBe(false);
    expect(nestsDeeper(JSON.parse('['.repeat(11) + ']'.repeat(11)), 10)).toBe(true);
    expect(nestsDeeper({ a: { b: { c: 1 } } }, 3)).toBe(false);
    expect(nestsDeeper('text', 0)).toBe(false);
  });
});
