import { describe, expect, it } from 'vitest';
import { fillPlaceholders, PlaceholderError, placeholderPaths } from './placeholders.ts';

const envelope = {
  event_type: 'ticket.created',
  data: { ticket_id: 't-1', count: 3, tags: ['a', 'b'], client: { name: 'Acme' }, none: null, flag: false },
  changes: { status_id: { new: 's-2' } },
  trigger: { event_id: 'e-1' },
};

describe('fillPlaceholders', () => {
  it('a whole placeholder takes the value with its type; embedded ones are stringified; nested configs and arrays are filled', () => {
    const filled = fillPlaceholders({
      ticket_id: '{{data.ticket_id}}',
      count: '{{ data.count }}',
      tags: '{{data.tags}}',
      client: '{{data.client}}',
      none: '{{data.none}}',
      flag: '{{data.flag}}',
      subject: 'Ticket {{data.ticket_id}} ({{data.count}} items, {{data.flag}}) for {{data.client}} {{data.tags}}{{data.none}}!',
      nested: { list: ['{{changes.status_id.new}}', 'plain', 7, null, { deep: 'x{{event_type}}' }] },
      '{{data.ticket_id}}': 'keys are not templated',
      untouched: 'a {single} brace and {{ not a path! }}',
    }, envelope);
    expect(filled).toEqual({
      ticket_id: 't-1',
      count: 3,
      tags: ['a', 'b'],
      client: { name: 'Acme' },
      none: null,
      flag: false,
      subject: 'Ticket t-1 (3 items, false) for {"name":"Acme"} ["a","b"]!',
      nested: { list: ['s-2', 'plain', 7, null, { deep: 'xticket.created' }] },
      '{{data.ticket_id}}': 'keys are not templated',
      untouched: 'a {single} brace and {{ not a path! }}',
    });
  });

  it('a path without a value is an error naming it (whole or embedded)', () => {
    expect(() => fillPlaceholders({ ticket_id: '{{data.missing}}' }, envelope)).toThrow(new PlaceholderError('data.missing'));
    expect(() => fillPlaceholders({ text: 'id {{data.client.nope}}' }, envelope)).toThrow('placeholder data.client.nope has no value');
    expect(() => fillPlaceholders({ list: [{ a: '{{trigger.other}}' }] }, envelope)).toThrow('placeholder trigger.other has no value');
  });

  it('does not change the config it was given', () => {
    const config = { a: '{{data.ticket_id}}', b: { c: ['{{data.count}}'] } };
    fillPlaceholders(config, envelope);
    expect(config).toEqual({ a: '{{data.ticket_id}}', b: { c: ['{{data.count}}'] } });
  });
});

describe('placeholderPaths', () => {
  it('lists every path once, in order of appearance', () => {
    expect(placeholderPaths({ a: '{{data.x}} and {{ data.y }}', b: ['{{data.x}}', { c: '{{changes.s.new}}' }], d: 5, e: null })).toEqual(['data.x', 'data.y', 'changes.s.new']);
    expect(placeholderPaths({ a: 'none' })).toEqual([]);
  });
});
